import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { tokenScope } from '../../platform/auth/auth-checker.js';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import type { Principal } from '../../platform/auth/principal.js';
import { notFound } from '../../platform/errors.js';
import { Topic, type PostgresPubSub } from '../../platform/pubsub.js';
import { wiredResolver } from '../../platform/resolver-container.js';
import type { AppService } from '../apps/index.js';
import type { MarketplaceService } from '../marketplace/index.js';
import type { LocalForwardService } from './local-forward.service.js';
import { LocalForward, WebhookForwardRequest } from './local-forward.types.js';
import { WebhookEventType } from './webhook.types.js';

/** `plaza listen` and `plaza trigger`: forwarding deliveries to a developer's own machine. */
@Resolver()
export class LocalForwardResolver {
  constructor(
    private readonly forwards: LocalForwardService,
    private readonly apps: AppService,
    private readonly pubSub: PostgresPubSub,
    private readonly marketplace: MarketplaceService,
  ) {}

  // Freshly signed requests are what redeliverWebhook can already cause to be sent, so the same scope (deliveries:write), not read.
  @Authorized(tokenScope('deliveries:write'))
  @Query(() => WebhookForwardRequest, {
    description:
      'One delivery of your apps as its receiver gets it (body and headers, signed now), for plaza listen to forward to a local URL; the app’s owner only (anyone else, admins included, NOT_FOUND)',
  })
  async webhookForwardRequest(@Arg('deliveryId', () => ID, { description: 'dlv_<ULID>' }) deliveryId: string, @Ctx() context: RequestContext): Promise<WebhookForwardRequest> {
    const request = await this.forwards.forwardRequest(requirePrincipal(context), deliveryId);
    if (!request) throw notFound(`Delivery ${deliveryId}`);
    return request;
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => WebhookForwardRequest, {
    description:
      'Owner: a sample event signed like a real one, sent only to the app’s listening plaza listen sessions (webhookTestEventTriggered), never to its webhook URL; marked X-Platform-Test: true with a purchase_id APP-<ms>-TEST.. that names no purchase. Nothing is bought, credited or recorded as a delivery',
  })
  async triggerWebhookEvent(
    @Arg('appId', () => ID, { description: 'One of your apps' }) appId: string,
    @Arg('event', () => WebhookEventType, { description: 'The event to imitate; amounts are those of a sale of the app (0 for a free app and for APP_TEST)' })
    event: WebhookEventType,
    @Ctx() context: RequestContext,
  ): Promise<WebhookForwardRequest> {
    const principal = requirePrincipal(context);
    const app = await this.apps.requireOwned(principal, appId, { forbiddenMessage: 'Only the developer who owns this app can trigger its events' });
    const amounts = event === WebhookEventType.APP_TEST ? { amountVnd: 0, developerShareVnd: 0 } : this.marketplace.saleAmounts(app.pricePoints);
    const request = await this.forwards.trigger(principal.userId, appId, event, amounts);
    // Counted once it is committed and published, on every API process: the listen sessions may be on another one.
    return Object.assign(request, { recipients: await this.pubSub.listenersEverywhere(Topic.WEBHOOK_TEST_TRIGGERED, appId) });
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => LocalForward, {
    description: 'What your local receiver answered when plaza listen forwarded a delivery (or a triggered event) to it; the delivery’s status and schedule do not change',
  })
  reportLocalForward(
    @Arg('deliveryId', () => ID, { description: 'The delivery or triggered event forwarded' }) deliveryId: string,
    @Arg('durationMs', () => Int, { description: 'How long the local request took (0..3600000)' }) durationMs: number,
    @Ctx() context: RequestContext,
    @Arg('statusCode', () => Int, { nullable: true, description: 'The local answer’s HTTP status (100..599); null when there was none' }) statusCode?: number | null,
    @Arg('error', () => String, { nullable: true, description: 'Why there was no answer (at most 500 characters)' }) error?: string | null,
  ): Promise<LocalForward> {
    return this.forwards.report(requirePrincipal(context), { deliveryId, statusCode, durationMs, error });
  }

  @Authorized(tokenScope('deliveries:read'))
  @Query(() => [LocalForward], { description: 'The answers of local receivers that plaza listen forwarded this delivery (or triggered event) to, oldest first' })
  webhookLocalForwards(@Arg('deliveryId', () => ID, { description: 'dlv_<ULID>' }) deliveryId: string, @Ctx() context: RequestContext): Promise<LocalForward[]> {
    return this.forwards.list(requirePrincipal(context), deliveryId);
  }

  @Authorized(tokenScope('deliveries:write'))
  @Subscription(() => WebhookForwardRequest, {
    description:
      'Owner only: sample events triggered for one of your apps (triggerWebhookEvent), live; real deliveries arrive through webhookDeliveryUpdated and webhookForwardRequest',
    subscribe: ({ args, context, info }: { args: { appId: string }; context: RequestContext; info: GraphQLResolveInfo }) =>
      wiredResolver(info, LocalForwardResolver).triggeredFor(requirePrincipal(context), args.appId),
  })
  webhookTestEventTriggered(
    @Root() request: WebhookForwardRequest & { createdAt: string | Date },
    @Arg('appId', () => ID, { description: 'One of your apps' }) _appId: string,
  ): WebhookForwardRequest {
    return Object.assign(new WebhookForwardRequest(), request, { createdAt: new Date(request.createdAt) });
  }

  private async triggeredFor(principal: Principal, appId: string): Promise<AsyncIterable<unknown>> {
    // The owner's only, admins included: each event arrives signed with the app's real secret and a fresh
    // webhook-timestamp, which its receiver would accept for five minutes (as webhookForwardRequest).
    await this.apps.requireOwned(principal, appId);
    return this.pubSub.subscribe(Topic.WEBHOOK_TEST_TRIGGERED, appId);
  }
}
