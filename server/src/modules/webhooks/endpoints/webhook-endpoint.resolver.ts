import { INIT_SESSION_FIELDS } from '@plaza/shared';
import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { tokenScope } from '../../../platform/auth/auth-checker.js';
import { requirePrincipal, type RequestContext } from '../../../platform/auth/context.js';
import { principalWithScope, seesEveryApp, type Principal } from '../../../platform/auth/principal.js';
import { notFound } from '../../../platform/errors.js';
import { perTickLoader } from '../../../platform/per-tick-loader.js';
import { App, isOwner, isReviewer, type AppService } from '../../apps/index.js';
import { WebhookDelivery } from '../webhook-delivery.entity.js';
import type { WebhookEventType } from '../webhook.types.js';
import { AppReceives } from './app-receives.type.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { RECEIVABLE_EVENTS } from './webhook-endpoint.types.js';
import { WebhookEndpointHealthView } from './webhook-endpoint-health.js';
import { WebhookEndpointInput } from './webhook-endpoint.input.js';
import type { WebhookEndpointsService } from './webhook-endpoints.service.js';

/**
 * Endpoints' mutations, App.webhookEndpoints and WebhookDelivery.endpoint. Only an app's owner changes its
 * endpoints; setting a URL (create, update) needs a person signed in, as the app's Webhook URL does, so a
 * leaked API token cannot send an app's events somewhere new; pausing, resuming and deleting admit tokens
 * with deliveries:write, as enableWebhook does. An endpoint of someone else's app is NOT_FOUND.
 */
@Resolver(() => WebhookEndpoint)
export class WebhookEndpointResolver {
  private readonly endpointsOfApp: (appId: string) => Promise<WebhookEndpoint[]>;
  private readonly healthById: (id: string) => Promise<WebhookEndpointHealthView | null>;

  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly apps: AppService,
  ) {
    this.endpointsOfApp = perTickLoader(
      (appIds: string[]) => endpoints.listForApps(appIds),
      () => [],
    );
    this.healthById = perTickLoader(
      (ids: string[]) => endpoints.healthOf(ids),
      () => null,
    );
  }

  /**
   * Whoever may read the endpoint's deliveries: its app's owner, and reviewers and admins signed in as people (as
   * webhookDeliveryStats); an API token needs deliveries:read. One statement for every endpoint of a page, and
   * the request's one reading of the apps its principal owns (RequestContext.ownedAppIds), asked beside it.
   */
  @FieldResolver(() => WebhookEndpointHealthView, {
    nullable: true,
    description:
      'Its health at a glance: its run of failures, its success rate over the last 24 hours, its open and held deliveries. Its app’s owner, reviewers and admins (API tokens need deliveries:read); null for anyone else',
  })
  async health(@Root() endpoint: WebhookEndpoint, @Ctx() context: RequestContext): Promise<WebhookEndpointHealthView | null> {
    const reader = principalWithScope(context.principal, 'deliveries:read');
    if (!reader) return null;
    const staff = reader.kind === 'session' && (reader.roles.has('REVIEWER') || seesEveryApp(reader));
    // Asked together, so every endpoint of a page still joins one batch of the health loader.
    const [health, owned] = await Promise.all([this.healthById(endpoint.id), staff ? undefined : context.ownedAppIds()]);
    return staff || (owned ?? []).includes(endpoint.appId) ? health : null;
  }

  @Authorized()
  @Mutation(() => WebhookEndpoint, { description: 'Owner: another destination for the app’s events (at most WEBHOOK_ENDPOINTS_PER_APP); no new review' })
  async createWebhookEndpoint(
    @Arg('appId', () => ID, { description: 'One of your apps' }) appId: string,
    @Arg('input', () => WebhookEndpointInput, { description: 'The endpoint: its URL, and its description, events and pace when given' }) input: WebhookEndpointInput,
    @Ctx() context: RequestContext,
  ): Promise<WebhookEndpoint> {
    await this.apps.requireOwned(requirePrincipal(context), appId, { forbiddenMessage: 'Only the developer who owns this app can add webhook endpoints to it' });
    return this.endpoints.create(appId, input);
  }

  @Authorized()
  @Mutation(() => WebhookEndpoint, { description: 'Owner: sets every field of the endpoint (one not given is its default); takes effect at once, no new review' })
  async updateWebhookEndpoint(
    @Arg('id', () => ID, { description: 'ep_<ULID>' }) id: string,
    @Arg('input', () => WebhookEndpointInput, { description: 'The endpoint: its URL, and its description, events and pace when given' }) input: WebhookEndpointInput,
    @Ctx() context: RequestContext,
  ): Promise<WebhookEndpoint> {
    await this.requireOwnEndpoint(requirePrincipal(context), id);
    return this.endpoints.update(id, input);
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => Boolean, { description: 'Owner: deletes the endpoint. Its deliveries stay in the log (their endpoint reads null); those not yet settled give up (FAILED)' })
  async deleteWebhookEndpoint(@Arg('id', () => ID, { description: 'ep_<ULID>' }) id: string, @Ctx() context: RequestContext): Promise<boolean> {
    await this.requireOwnEndpoint(requirePrincipal(context), id);
    return this.endpoints.delete(id);
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => WebhookEndpoint, {
    description: 'Owner: nothing is sent to it; its events are recorded and held (FAILED, heldReason says why) until resumeWebhookEndpoint and a recovery',
  })
  async pauseWebhookEndpoint(@Arg('id', () => ID, { description: 'ep_<ULID>' }) id: string, @Ctx() context: RequestContext): Promise<WebhookEndpoint> {
    await this.requireOwnEndpoint(requirePrincipal(context), id);
    return this.endpoints.pause(id);
  }

  @Authorized(tokenScope('deliveries:write'))
  @Mutation(() => WebhookEndpoint, {
    description: 'Owner: ENABLED again after a pause or an automatic disable; new events are sent, held ones by recoverWebhookDeliveries(appId, since, endpointId)',
  })
  async resumeWebhookEndpoint(@Arg('id', () => ID, { description: 'ep_<ULID>' }) id: string, @Ctx() context: RequestContext): Promise<WebhookEndpoint> {
    await this.requireOwnEndpoint(requirePrincipal(context), id);
    return this.endpoints.resume(id);
  }

  /** The endpoint when `principal` owns its app; NOT_FOUND otherwise (whether it exists is the owner's to know). */
  async requireOwnEndpoint(principal: Principal, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.find(id);
    const app = endpoint ? await this.apps.findById(endpoint.appId) : null;
    if (!endpoint || !app || !isOwner(app, principal)) throw notFound('Webhook endpoint');
    return endpoint;
  }

  /** The events any endpoint of the app is sent (the endpoints of a page of apps read together), in the catalogue's order. */
  async eventsReceivedBy(appId: string): Promise<WebhookEventType[]> {
    const received = new Set((await this.endpointsOfApp(appId)).flatMap((endpoint) => endpoint.events));
    return RECEIVABLE_EVENTS.filter((event) => received.has(event));
  }

  /** The app's endpoints for those who see its Webhook URL (its developer, reviewers); empty for everyone else. */
  endpointsVisibleTo(app: App, principal: Principal | null): Promise<WebhookEndpoint[]> | WebhookEndpoint[] {
    return isOwner(app, principal) || isReviewer(principal) ? this.endpointsOfApp(app.id) : [];
  }
}

/** App.webhookEndpoints and App.receives, answered by the webhooks feature. */
@Resolver(() => App)
export class AppEndpointsResolver {
  constructor(private readonly endpoints: WebhookEndpointResolver) {}

  @FieldResolver(() => AppReceives, {
    description: 'What the app receives about the people who use it: the session fields and the webhook events (names only); anyone who may see the app may ask',
  })
  async receives(@Root() app: App): Promise<AppReceives> {
    return { sessionFields: [...INIT_SESSION_FIELDS], webhookEvents: await this.endpoints.eventsReceivedBy(app.id) };
  }

  @FieldResolver(() => [WebhookEndpoint], {
    description: 'Where its webhook events go, oldest first (the first is webhookUrl); only its developer and reviewers see them, empty for everyone else',
  })
  webhookEndpoints(@Root() app: App, @Ctx() { principal }: RequestContext): Promise<WebhookEndpoint[]> | WebhookEndpoint[] {
    return this.endpoints.endpointsVisibleTo(app, principal);
  }
}

/** WebhookDelivery.endpoint: whoever may read the delivery may read where it went. */
@Resolver(() => WebhookDelivery)
export class DeliveryEndpointResolver {
  private readonly endpointById: (id: string) => Promise<WebhookEndpoint | null>;

  constructor(endpoints: WebhookEndpointsService) {
    this.endpointById = perTickLoader(
      (ids: string[]) => endpoints.findMany(ids),
      () => null,
    );
  }

  @FieldResolver(() => WebhookEndpoint, { nullable: true, description: 'The endpoint it goes to; null once that endpoint is deleted' })
  endpoint(@Root() delivery: WebhookDelivery): Promise<WebhookEndpoint | null> | null {
    return delivery.endpointId ? this.endpointById(delivery.endpointId) : null;
  }
}
