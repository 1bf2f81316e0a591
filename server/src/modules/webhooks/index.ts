// The webhooks feature as other features see it (conventions.md 14): they import from here, never its files.
export { WebhookEventsService } from './webhook-events.service.js';
// The open deliveries /metrics reports (platform/metrics.ts gets them through app/).
export { deliveryBacklog } from './delivery-backlog.js';
// The delivery numbers behind the charts (the insights feature shapes them).
export { DeliveryStatsReader, type StatsSource } from './delivery-stats.js';
export { DeliveryStatus, WebhookEventType, WebhookState } from './webhook.types.js';
// The error an attempt cut short by its worker's stop carries (reports count them apart).
export { INTERRUPTED } from './delivery/sql-fragments.js';
