// The webhooks feature as other features see it (conventions.md 14): they import from here, never its files.
export { WebhookEventsService } from './webhook-events.service.js';
export { DeliveryStatus, WebhookEventType, WebhookState } from './webhook.types.js';
// The error an attempt cut short by its worker's stop carries (reports count them apart).
export { INTERRUPTED } from './delivery/delivery-queries.js';
