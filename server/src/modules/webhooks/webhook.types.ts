import { registerEnumType } from 'type-graphql';
import { WebhookEventType } from '../../platform/webhook-enums.js';

// Defined below the features (platform/webhook-enums.ts), since apps stores them too; here for webhooks' own files.
export { WebhookEventType, WebhookState } from '../../platform/webhook-enums.js';

export enum DeliveryStatus {
  /** Not attempted yet. */
  PENDING = 'PENDING',
  /** A later attempt is scheduled. */
  RETRYING = 'RETRYING',
  SUCCEEDED = 'SUCCEEDED',
  /** Every scheduled attempt failed. */
  FAILED = 'FAILED',
}
export enum AttemptTrigger {
  SCHEDULED = 'SCHEDULED',
  MANUAL = 'MANUAL',
}
/** Where one attempt stands: its status code and error are null both while in flight and after a timeout. */
export enum AttemptOutcome {
  /** Sent, no answer yet (or the worker stopped and the attempt is not yet closed as interrupted). */
  IN_FLIGHT = 'IN_FLIGHT',
  /** A 2xx came back. */
  SUCCEEDED = 'SUCCEEDED',
  /** Anything else: non-2xx, timeout, connection failure, refused destination, interrupted. */
  FAILED = 'FAILED',
}
registerEnumType(DeliveryStatus, {
  name: 'DeliveryStatus',
  description: 'Where a webhook delivery stands',
  valuesConfig: {
    PENDING: { description: 'Not attempted yet' },
    RETRYING: { description: 'An attempt failed; a later attempt is scheduled (nextAttemptAt)' },
    SUCCEEDED: { description: 'An attempt got a 2xx answer' },
    FAILED: { description: 'Every scheduled attempt failed (6 by default); redeliverWebhook can try once more' },
  },
});
registerEnumType(AttemptOutcome, {
  name: 'AttemptOutcome',
  description: 'Where one delivery attempt stands',
  valuesConfig: {
    IN_FLIGHT: { description: 'Sent, no answer yet' },
    SUCCEEDED: { description: 'A 2xx came back' },
    FAILED: { description: 'Anything else: non-2xx (3xx included), timeout, connection failure, refused destination, interrupted' },
  },
});

/** The `event` value on the wire (dotted, as receivers see it: `app.purchased`), for each enum value. */
export const EVENT_WIRE_NAME: Record<WebhookEventType, string> = {
  APP_PURCHASED: 'app.purchased',
  APP_INSTALLED: 'app.installed',
  APP_UNINSTALLED: 'app.uninstalled',
  APP_REFUNDED: 'app.refunded',
  APP_TEST: 'app.test',
};
export const EVENT_TYPE_BY_WIRE_NAME = Object.fromEntries(Object.entries(EVENT_WIRE_NAME).map(([k, v]) => [v, k])) as Record<string, WebhookEventType>;

/** Why a delivery recorded while its app's webhook was disabled was not sent (WebhookDelivery.heldReason). */
export const HELD_WHILE_DISABLED = 'Not sent: the app’s webhook was disabled after sustained failures. Enable it, then recover failed deliveries to send this one.';

/** The error of an attempt not sent because the delivery's body passed WEBHOOK_BODY_RETENTION. */
export const BODY_NOT_KEPT = 'not sent: the body is no longer kept (older than WEBHOOK_BODY_RETENTION); this delivery cannot be sent again';
