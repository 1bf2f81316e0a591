// The webhooks feature as other features see it (conventions.md 14): they import from here, never its files.
export { WebhookEventsService } from './webhook-events.service.js';
// The open deliveries /metrics reports (platform/metrics.ts gets them through app/).
export { deliveryBacklog } from './delivery-backlog.js';
// The delivery numbers behind the charts (the insights feature shapes them).
export { DeliveryStatsReader, type StatsSource } from './delivery-stats.js';
export { DeliveryStatus, WebhookEventType, WebhookState } from './webhook.types.js';
// The error an attempt cut short by its worker's stop carries (reports count them apart).
export { INTERRUPTED } from './delivery/sql-fragments.js';

// What the wiring (app/) builds the server from: the engine and what runs beside it (runner, recovery, health,
// retention jobs), the log, local forwards, the resolvers and routes, and the tables' entities.
export { DeliveryEngine } from './delivery/delivery-engine.js';
export { DeliveryRecovery } from './delivery/delivery-recovery.js';
export { DeliveryRunner } from './delivery/delivery-runner.js';
export { DELIVERIES_DUE_CHANNEL } from './delivery/delivery-wake-ups.js';
export { DeliveryLogService } from './delivery-log.service.js';
export { WebhookHealthService } from './webhook-health.service.js';
export { LocalForwardService } from './local-forward.service.js';
export { ensureAttemptPartitions } from './attempt-retention.js';
export { ensureEventPartitions } from './body-retention.js';
export { definePruneAttemptsJob, PRUNE_ATTEMPTS_JOB, PRUNE_INTERVAL } from './jobs/prune-attempts.job.js';
export { eventCatalogueRoutes } from './event-catalogue.routes.js';
export { DeliveryAttemptResolver, WebhookResolver } from './webhook.resolver.js';
export { LocalForwardResolver } from './local-forward.resolver.js';
export { DeliveryAttempt } from './delivery-attempt.entity.js';
export { WebhookDelivery } from './webhook-delivery.entity.js';
export { WebhookEvent } from './webhook-event.entity.js';
export { WebhookEndpointHealth } from './webhook-health.entity.js';
export { WebhookEndpoint } from './endpoints/webhook-endpoint.entity.js';
export { WebhookEndpointsService } from './endpoints/webhook-endpoints.service.js';
export { AppEndpointsResolver, DeliveryEndpointResolver, WebhookEndpointResolver } from './endpoints/webhook-endpoint.resolver.js';
