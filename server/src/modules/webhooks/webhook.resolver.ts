import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import { tokenScope } from '../../platform/auth/auth-checker.js';
import { ConnectionType, PAGE_ARGS } from '../../platform/connection.js';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { seesEveryApp, type Principal } from '../../platform/auth/principal.js';
import { DIRECT, Topic, type DirectSource, type PostgresPubSub } from '../../platform/pubsub.js';
import { wiredResolver } from '../../platform/resolver-container.js';
import { App, type AppService } from '../apps/index.js';
import type { WebhookHealthService } from './webhook-health.service.js';
import { WebhookRecovery } from './webhook-recovery.type.js';
import type { MarketplaceService } from '../marketplace/index.js';
import type { DeliveryLogService } from './delivery-log.service.js';
import type { DeliveryRecovery } from './delivery/delivery-recovery.js';
import type { WebhookEventsService } from './webhook-events.service.js';
import { DeliveryAttempt } from './delivery-attempt.entity.js';
import { deliveryFromUpdate, type DeliveryUpdate } from './delivery-updates.js';
import { WebhookDeliveryFilter } from './dto/webhook-delivery-filter.input.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { AttemptOutcome, WebhookEventType } from './webhook.types.js';
import { notFound } from '../../platform/errors.js';
import { WebhookEndpointState } from './endpoints/webhook-endpoint.types.js';
import { webhookErrors } from './webhook.errors.js';
import type { WebhookEndpointsService } from './endpoints/webhook-endpoints.service.js';

@ObjectType({ description: 'A page of webhook deliveries (Relay connection)' })
export class WebhookDeliveryConnection extends ConnectionType(WebhookDelivery, 'WebhookDelivery') {}

@ObjectType({ description: 'One request header exactly as sent' })
export class WebhookHeader {
  @Field({ description: 'Header name, e.g. X-Platform-Signature' })
  name: string;

  @Field({ description: 'Header value' })
  value: string;
}

/**
 * Filters live updates for one subscriber without touching the database per message. Not an async
 * generator: its `return` must reach the source at once, where a generator's waits for the next
 * update of any app, the closed subscriber listening on meanwhile. Filters a direct source's hand-overs
 * (pubsub.ts `DIRECT`) as well.
 */
function onlyOwnedBy(source: AsyncIterable<unknown>, ownerId: string): AsyncIterableIterator<unknown> & Partial<DirectSource> {
  const iterator = source[Symbol.asyncIterator]();
  const owned = (update: unknown) => (update as DeliveryUpdate).ownerId === ownerId;
  const filtered: AsyncIterableIterator<unknown> & Partial<DirectSource> = {
    next: async () => {
      for (;;) {
        const step = await iterator.next();
        if (step.done || owned(step.value)) return step;
      }
    },
    return: async () => {
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  if (DIRECT in source) {
    const direct = source as AsyncIterable<unknown> & DirectSource;
    filtered[DIRECT] = (listener) => direct[DIRECT]((update) => void (owned(update) && listener(update)));
  }
  return filtered;
}

@Resolver(() => WebhookDelivery)
export class WebhookResolver {
  constructor(
    private readonly deliveryLog: DeliveryLogService,
    private readonly deliveryRecovery: DeliveryRecovery,
    private readonly webhookEvents: WebhookEventsService,
    private readonly apps: AppService,
    private readonly pubSub: PostgresPubSub,
    private readonly marketplace: MarketplaceService,
    private readonly health: WebhookHealthService,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => WebhookRecovery, {
    description:
      'Owner or admin: every FAILED delivery of the app (to its enabled endpoints, or the one named) created since then gets one MANUAL attempt (same id and body), oldest first, paced by the concurrency cap; webhookDeliveryUpdated shows the progress. Asking again does not send twice what is already queued',
  })
  async recoverWebhookDeliveries(
    @Arg('appId', () => ID, { description: 'The app (yours; admins: any)' }) appId: string,
    @Arg('since', () => Date, { description: 'Deliveries created at or after this instant; not in the future' }) since: Date,
    @Ctx() context: RequestContext,
    @Arg('endpointId', () => ID, { nullable: true, description: 'Only this endpoint’s deliveries (ep_<ULID>); those of every enabled endpoint of the app when not given' })
    endpointId?: string | null,
  ): Promise<WebhookRecovery> {
    await this.apps.requireOwned(requirePrincipal(context), appId, {
      allowAdmin: true,
      forbiddenMessage: 'Only the developer who owns this app (or an admin) can recover its deliveries',
    });
    const endpoints = await this.endpoints.list(appId);
    const chosen = endpointId ? endpoints.filter((endpoint) => endpoint.id === endpointId) : endpoints;
    if (endpointId && chosen.length === 0) throw notFound('Webhook endpoint');
    const enabled = chosen.filter((endpoint) => endpoint.state === WebhookEndpointState.ENABLED);
    // Nothing may go out to a paused or disabled endpoint: refused when that is every endpoint asked for (the second round's app with one).
    if (chosen.length > 0 && enabled.length === 0)
      throw chosen.some((endpoint) => endpoint.state === WebhookEndpointState.DISABLED) ? webhookErrors.webhookDisabled() : webhookErrors.endpointPaused();
    return this.deliveryRecovery.recoverFailed(
      appId,
      since,
      enabled.map((endpoint) => endpoint.id),
    );
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => App, {
    description: 'Owner: every endpoint of the app disabled after sustained failure is ENABLED again; held and failed deliveries are sent by recoverWebhookDeliveries',
  })
  async enableWebhook(@Arg('appId', () => ID, { description: 'One of your apps' }) appId: string, @Ctx() context: RequestContext): Promise<App> {
    const principal = requirePrincipal(context);
    await this.apps.requireOwned(principal, appId, { forbiddenMessage: 'Only the developer who owns this app can enable its webhook' });
    await this.health.enable(appId);
    return this.apps.requireOwned(principal, appId);
  }

  @Authorized(tokenScope('deliveries:read'))
  @Query(() => WebhookDeliveryConnection, { description: 'Newest first. Owners see their apps, admins all; API tokens their owner’s apps' })
  async webhookDeliveries(
    @Ctx() context: RequestContext,
    @Arg('filter', () => WebhookDeliveryFilter, { nullable: true, description: 'Only deliveries that match; all you may see when null' }) filter?: WebhookDeliveryFilter | null,
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<WebhookDeliveryConnection> {
    const readable = seesEveryApp(requirePrincipal(context)) ? undefined : await context.ownedAppIds();
    return this.deliveryLog.list(readable, filter ?? {}, { first, after, last, before });
  }

  @Authorized(tokenScope('deliveries:read'))
  @Query(() => WebhookDelivery, { nullable: true, description: 'One delivery of your apps (admins: any); null when there is none you may see' })
  webhookDelivery(@Arg('id', () => ID, { description: 'dlv_<ULID>' }) id: string, @Ctx() context: RequestContext): Promise<WebhookDelivery | null> {
    return this.deliveryLog.get(requirePrincipal(context), id);
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => WebhookDelivery, { description: 'Owner or admin: one immediate attempt (trigger MANUAL); a failure starts no new schedule' })
  redeliverWebhook(@Arg('deliveryId', () => ID, { description: 'dlv_<ULID>' }) deliveryId: string, @Ctx() context: RequestContext): Promise<WebhookDelivery> {
    return this.deliveryRecovery.redeliver(requirePrincipal(context), deliveryId);
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => WebhookDelivery, {
    description:
      'Owner: a signed sample event to the app’s endpoints (or the one named), sent whatever their events say; answers the delivery to the first. Marked as a test: header X-Platform-Test: true and a purchase_id APP-<ms>-TEST.. that names no purchase; nothing is bought or credited. Sent once, never retried (a failed attempt leaves it FAILED); at most 10 a minute per app, past which RATE_LIMITED',
  })
  async sendTestWebhook(
    @Arg('appId', () => ID, { description: 'One of your apps with a webhook URL' }) appId: string,
    @Ctx() context: RequestContext,
    @Arg('event', () => WebhookEventType, {
      nullable: true,
      description: 'The event to imitate; APP_TEST when not given. Amounts are those of a sale of the app (0 for a free app and for APP_TEST)',
    })
    event?: WebhookEventType | null,
    @Arg('endpointId', () => ID, { nullable: true, description: 'Only to this endpoint of the app (ep_<ULID>); to every endpoint when not given' }) endpointId?: string | null,
  ): Promise<WebhookDelivery> {
    const principal = requirePrincipal(context);
    const app = await this.apps.requireOwned(principal, appId, { forbiddenMessage: 'Only the developer who owns this app can send it test events' });
    return this.webhookEvents.sendTest(appId, principal.userId, event ?? WebhookEventType.APP_TEST, this.marketplace.saleAmounts(app.pricePoints), endpointId ?? undefined);
  }

  @Authorized(tokenScope('deliveries:read'))
  @Subscription(() => WebhookDelivery, {
    description: 'Every status change and attempt of your apps’ deliveries (one app, or all of yours), live',
    subscribe: ({ args, context, info }: { args: { appId?: string | null }; context: RequestContext; info: GraphQLResolveInfo }) =>
      wiredResolver(info, WebhookResolver).deliveryUpdatesFor(requirePrincipal(context), args.appId),
  })
  webhookDeliveryUpdated(
    @Root() update: DeliveryUpdate,
    @Arg('appId', () => ID, { nullable: true, description: 'Only this app (yours; admins: any); all of yours when null' }) _appId?: string | null,
  ): WebhookDelivery {
    return deliveryFromUpdate(update);
  }

  /** The live updates `principal` may follow: one app they own (admins: any), or all of theirs (admins: everyone's). */
  private async deliveryUpdatesFor(principal: Principal, appId: string | null | undefined): Promise<AsyncIterable<unknown>> {
    if (appId) {
      await this.apps.requireOwned(principal, appId, { allowAdmin: true });
      return this.pubSub.subscribe(Topic.WEBHOOK_DELIVERY_UPDATED, appId);
    }
    const everything = this.pubSub.subscribe(Topic.WEBHOOK_DELIVERY_UPDATED);
    return seesEveryApp(principal) ? everything : onlyOwnedBy(everything, principal.userId);
  }

  @FieldResolver(() => String, { description: 'The exact JSON body that is signed and sent; "" once it is no longer kept (payloadKept false)' })
  async payload(@Root() delivery: WebhookDelivery): Promise<string> {
    return (await this.bodyOf(delivery)) ?? '';
  }

  @FieldResolver(() => Boolean, {
    description:
      'False when the body is no longer kept: the delivery was created longer ago than WEBHOOK_BODY_RETENTION and has finished, so its body was deleted. payload is then "", and it cannot be redelivered or recovered',
  })
  async payloadKept(@Root() delivery: WebhookDelivery): Promise<boolean> {
    return (await this.bodyOf(delivery)) !== null;
  }

  /**
   * The body as loaded with the delivery, or from a loader (one query per turn): by its event when the delivery
   * was read with it (a page of the log), else by delivery id (a live update carries no event id); null when it is gone.
   */
  private async bodyOf(delivery: WebhookDelivery): Promise<string | null> {
    if (delivery.payloadText !== undefined) return delivery.payloadText;
    return delivery.eventId ? this.deliveryLog.bodyOfEvent(delivery.eventId) : this.deliveryLog.payload(delivery.id);
  }

  @FieldResolver(() => [DeliveryAttempt], { description: 'Oldest first' })
  attempts(@Root() delivery: WebhookDelivery): Promise<DeliveryAttempt[]> | DeliveryAttempt[] {
    return delivery.attemptList ?? this.deliveryLog.attempts(delivery.id);
  }

  @FieldResolver(() => DeliveryAttempt, {
    nullable: true,
    description:
      'The latest attempt (the last of attempts): its statusCode, error and durationMs say how the receiver last answered; null before the first. A page of deliveries reads these in one statement',
  })
  lastAttempt(@Root() delivery: WebhookDelivery): Promise<DeliveryAttempt | null> | DeliveryAttempt | null {
    if (delivery.attemptList) return delivery.attemptList.at(-1) ?? null;
    return this.deliveryLog.lastAttempt(delivery.id);
  }
}

@Resolver(() => DeliveryAttempt)
export class DeliveryAttemptResolver {
  @FieldResolver(() => Int, { description: 'Milliseconds; for an attempt still in flight, so far' })
  durationMs(@Root() attempt: DeliveryAttempt): number {
    return attempt.durationMsOrNull ?? Math.max(0, Date.now() - attempt.startedAt.getTime());
  }

  @FieldResolver(() => Boolean, { description: 'False while the attempt is in flight' })
  finished(@Root() attempt: DeliveryAttempt): boolean {
    return attempt.finished;
  }

  @FieldResolver(() => Date, { nullable: true, description: 'When the attempt ended (startedAt + durationMs); null while it is in flight' })
  finishedAt(@Root() attempt: DeliveryAttempt): Date | null {
    if (!attempt.finished) return null;
    return new Date(attempt.startedAt.getTime() + (attempt.durationMsOrNull ?? 0));
  }

  @FieldResolver(() => AttemptOutcome, { description: 'IN_FLIGHT until an answer, a failure or the timeout; then SUCCEEDED (2xx) or FAILED' })
  outcome(@Root() attempt: DeliveryAttempt): AttemptOutcome {
    if (!attempt.finished) return AttemptOutcome.IN_FLIGHT;
    return attempt.error === null ? AttemptOutcome.SUCCEEDED : AttemptOutcome.FAILED;
  }

  @FieldResolver(() => [WebhookHeader], { description: 'The request headers exactly as sent' })
  requestHeaders(@Root() attempt: DeliveryAttempt): WebhookHeader[] {
    return Object.entries(attempt.requestHeaders ?? {}).map(([name, value]) => ({ name, value }));
  }
}
