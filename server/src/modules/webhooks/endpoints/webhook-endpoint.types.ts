import { registerEnumType } from 'type-graphql';
import { sqlLiterals, sqlText } from '../../../platform/sql-literals.js';
import { HELD_WHILE_DISABLED } from '../webhook.types.js';
import { WebhookEventType } from '../webhook.types.js';

/** Whether Plaza sends an endpoint its events. */
export enum WebhookEndpointState {
  ENABLED = 'ENABLED',
  /** Its owner paused it: events are recorded and held, nothing is sent, until resumeWebhookEndpoint. */
  PAUSED = 'PAUSED',
  /** Sustained failure (WEBHOOK_DISABLE_AFTER) turned it off: held as when paused, until it is resumed (or enableWebhook). */
  DISABLED = 'DISABLED',
}

registerEnumType(WebhookEndpointState, {
  name: 'WebhookEndpointState',
  description: 'Whether Plaza sends an endpoint its events',
  valuesConfig: {
    ENABLED: { description: 'Events are sent as they happen' },
    PAUSED: { description: 'Paused by its owner: events are recorded and held (FAILED, heldReason says why), nothing is sent; resumeWebhookEndpoint sends new events again' },
    DISABLED: {
      description:
        'Deliveries failed with no success for WEBHOOK_DISABLE_AFTER: events are recorded and held until resumeWebhookEndpoint (or enableWebhook); recoverWebhookDeliveries then sends them',
    },
  },
});

/** The events an endpoint may choose; app.test is always sent and never chosen. */
export const RECEIVABLE_EVENTS: readonly WebhookEventType[] = Object.freeze(Object.values(WebhookEventType).filter((event) => event !== WebhookEventType.APP_TEST));

/** Why a delivery recorded (or found open) while its endpoint was paused was not sent (WebhookDelivery.heldReason). */
export const HELD_WHILE_PAUSED = 'Not sent: its endpoint was paused by its owner. Resume the endpoint, then recover failed deliveries to send this one.';

/** Why a delivery of an endpoint in state `state` (SQL naming the endpoint's state) is held: paused by its owner, or disabled. */
export const heldReasonSql = (state: string) =>
  `CASE WHEN ${state} = ${sqlLiterals(WebhookEndpointState.PAUSED)} THEN ${sqlText(HELD_WHILE_PAUSED)} ELSE ${sqlText(HELD_WHILE_DISABLED)} END`;
