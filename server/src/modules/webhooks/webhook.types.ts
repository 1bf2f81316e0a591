import { registerEnumType } from 'type-graphql';

export enum DeliveryStatus {
  /** Not attempted yet. */
  PENDING = 'PENDING',
  /** A later attempt is scheduled. */
  RETRYING = 'RETRYING',
  SUCCEEDED = 'SUCCEEDED',
  /** Every scheduled attempt failed. */
  FAILED = 'FAILED',
}
export enum WebhookEventType {
  APP_PURCHASED = 'APP_PURCHASED',
  APP_INSTALLED = 'APP_INSTALLED',
  APP_UNINSTALLED = 'APP_UNINSTALLED',
  APP_REFUNDED = 'APP_REFUNDED',
  APP_TEST = 'APP_TEST',
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
registerEnumType(DeliveryStatus, { name: 'DeliveryStatus' });
registerEnumType(AttemptOutcome, { name: 'AttemptOutcome' });
registerEnumType(WebhookEventType, { name: 'WebhookEventType' });

/** The `event` value on the wire (interface.md, Events), for each enum value. */
export const EVENT_WIRE_NAME: Record<WebhookEventType, string> = {
  APP_PURCHASED: 'app.purchased',
  APP_INSTALLED: 'app.installed',
  APP_UNINSTALLED: 'app.uninstalled',
  APP_REFUNDED: 'app.refunded',
  APP_TEST: 'app.test',
};
export const EVENT_TYPE_BY_WIRE_NAME = Object.fromEntries(Object.entries(EVENT_WIRE_NAME).map(([k, v]) => [v, k])) as Record<string, WebhookEventType>;

/** Deliveries the engine still has to attempt. */
export const OPEN_STATUSES = [DeliveryStatus.PENDING, DeliveryStatus.RETRYING];

/** The most of a response body an attempt keeps (contract: first 1 KiB). */
export const RESPONSE_EXCERPT_BYTES = 1024;
