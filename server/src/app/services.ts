import type { DataSource } from 'typeorm';
import type { Config } from '../config.js';
import { AppService } from '../modules/apps/index.js';
import { IdentityService, SessionTokenService } from '../modules/identity/index.js';
import { Mailer } from '../platform/mailer.js';
import { NotificationService, ReviewService, PreCheckService } from '../modules/review/index.js';
import { SecretsService } from '../modules/secrets/index.js';
import {
  DeliveryEngine,
  DeliveryLogService,
  DeliveryRecovery,
  WebhookEventsService,
  WebhookHealthService,
  WebhookEndpointsService,
  LocalForwardService,
  deliveryBacklog,
  DeliveryStatsReader,
} from '../modules/webhooks/index.js';
import { GuardedHttpClient } from '../platform/outbound-http/guarded-http-client.js';
import { MarketplaceService } from '../modules/marketplace/index.js';
import { PlazaMetrics } from '../platform/metrics.js';
import { InsightsService } from '../modules/insights/index.js';
import type { PostgresPubSub } from '../platform/pubsub.js';
import { Readiness } from '../platform/readiness.js';
import { databasePool } from '../platform/database.js';
import { SubscriptionLimits } from '../platform/subscription-limits.js';

/** Every service, wired once per process and handed to resolvers through the request context. */
export interface Services {
  config: Config;
  db: DataSource;
  pubSub: PostgresPubSub;
  identity: IdentityService;
  apps: AppService;
  review: ReviewService;
  notifications: NotificationService;
  secrets: SecretsService;
  mailer: Mailer;
  /** The one client for servers Plaza does not run (webhooks, pre-checks). */
  http: GuardedHttpClient;
  webhookEvents: WebhookEventsService;
  webhookEngine: DeliveryEngine;
  deliveryLog: DeliveryLogService;
  deliveryRecovery: DeliveryRecovery;
  /** Failure alerts and the automatic disable of webhooks. */
  webhookHealth: WebhookHealthService;
  /** Each app's webhook destinations, their events, state and pace. */
  webhookEndpoints: WebhookEndpointsService;
  /** plaza listen / plaza trigger: signed requests for local forwarding, triggered test events, local answers. */
  localForwards: LocalForwardService;
  marketplace: MarketplaceService;
  sessionTokens: SessionTokenService;
  preChecks: PreCheckService;
  /** The numbers behind the charts: delivery health, earnings over time, the platform at a glance. */
  insights: InsightsService;
  /** This process's Prometheus metrics (/metrics). */
  metrics: PlazaMetrics;
  /** What /readyz checks: the database, and the job store while a job worker runs in this process. */
  readiness: Readiness;
  /** Live subscriptions per WebSocket and WebSockets per account that this process holds. */
  subscriptionLimits: SubscriptionLimits;
}

export function createServices(config: Config, db: DataSource, pubSub: PostgresPubSub): Services {
  const metrics = new PlazaMetrics();
  const readiness = new Readiness();
  readiness.add('database', () => db.query('SELECT 1'));
  metrics.watch(deliveryBacklog(db), pubSub);
  const secrets = new SecretsService(db, config);
  const notifications = new NotificationService(db, pubSub);
  const mailer = new Mailer(config.smtpUrl, config.smtpFrom);
  const http = new GuardedHttpClient({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivateUrls });
  const preChecks = new PreCheckService(db, http, config.platformOrigin);
  const webhookEvents = new WebhookEventsService(db, { testEventsPerMinute: config.webhookTestEventsPerMinute });
  // Secrets and review stand on apps; what a submission asks of them arrives as steps, so apps imports neither.
  const webhookEndpoints = new WebhookEndpointsService(db, { endpointsPerApp: config.webhookEndpointsPerApp, allowPrivateUrls: config.webhookAllowPrivateUrls });
  const identity = new IdentityService(db, config, pubSub);
  const apps = new AppService(db, config, {
    createSecret: (manager, appId, at) => secrets.createForApp(manager, appId, at),
    requestPreChecks: (manager, appId, revision) => preChecks.request(manager, appId, revision),
    setWebhookDestination: (manager, appId, url, events) => webhookEndpoints.setFirstFromApp(manager, appId, url, events),
    ownerAppsChanged: (ownerId) => identity.appsOfAccountChanged(ownerId),
  });
  // The engine's statements go to the pg pool itself (named, prepared), the same pool TypeORM uses.
  const webhookHealth = new WebhookHealthService(db, notifications, mailer, identity, webhookEndpoints, {
    disableAfterMs: config.webhookDisableAfterMs,
    platformOrigin: config.platformOrigin,
  });
  const webhookEngine = new DeliveryEngine(
    databasePool(db),
    db,
    http,
    pubSub,
    config.encryptionKeys,
    { retryScheduleMs: config.webhookRetryScheduleMs, claimLeaseMs: config.webhookClaimLeaseMs, onHealthChanged: webhookHealth.check },
    metrics,
  );
  const deliveryLog = new DeliveryLogService(db);
  const deliveryRecovery = new DeliveryRecovery(db, pubSub, webhookEngine, deliveryLog);
  const marketplace = new MarketplaceService(db, config, webhookEvents, apps, identity, notifications);
  return {
    metrics,
    readiness,
    http,
    webhookEvents,
    marketplace,
    sessionTokens: new SessionTokenService(db, config),
    webhookEngine,
    webhookHealth,
    webhookEndpoints,
    deliveryLog,
    deliveryRecovery,
    localForwards: new LocalForwardService(db, pubSub, deliveryLog, config.encryptionKeys),
    config,
    db,
    pubSub,
    identity,
    apps,
    preChecks,
    insights: new InsightsService(db, new DeliveryStatsReader(db), marketplace),
    review: new ReviewService(db, notifications, mailer, apps, identity),
    notifications,
    secrets,
    mailer,
    subscriptionLimits: new SubscriptionLimits(config.websocketsPerAccount),
  };
}
