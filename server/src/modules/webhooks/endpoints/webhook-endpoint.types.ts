import { registerEnumType } from 'type-graphql';
import { conflict } from '../../../platform/errors.js';
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

/** `extensions.reason` of the endpoints' refusals: stable values clients branch on (a disabled endpoint's is the second round's WEBHOOK_DISABLED). */
export const EndpointErrorReason = {
  /** CONFLICT: the app has WEBHOOK_ENDPOINTS_PER_APP endpoints already. */
  TOO_MANY_ENDPOINTS: 'TOO_MANY_ENDPOINTS',
  /** CONFLICT: a delivery of a paused endpoint cannot be sent again until it is resumed. */
  ENDPOINT_PAUSED: 'ENDPOINT_PAUSED',
  /** CONFLICT: the delivery's endpoint was deleted; there is nowhere to send it. */
  ENDPOINT_DELETED: 'ENDPOINT_DELETED',
  /** CONFLICT: the endpoint changed state while the redelivery was being reserved; asking again says how it stands. */
  ENDPOINT_NOT_ENABLED: 'ENDPOINT_NOT_ENABLED',
} as const;
export type EndpointErrorReason = (typeof EndpointErrorReason)[keyof typeof EndpointErrorReason];

export const endpointErrors = {
  tooMany: (limit: number) =>
    conflict(
      `This app has ${limit} webhook endpoints, the most an app may have (WEBHOOK_ENDPOINTS_PER_APP); delete one, or send several kinds of events to one endpoint`,
      EndpointErrorReason.TOO_MANY_ENDPOINTS,
    ),
  paused: () =>
    conflict(
      'This delivery’s endpoint is paused: resume it (resumeWebhookEndpoint) before sending its deliveries again. Nothing was sent or recorded.',
      EndpointErrorReason.ENDPOINT_PAUSED,
    ),
  deleted: () => conflict('This delivery’s endpoint was deleted, so there is nowhere to send it. Nothing was sent or recorded.', EndpointErrorReason.ENDPOINT_DELETED),
  notEnabled: () => conflict('This delivery could not be sent again just now; nothing was sent or recorded. Try again.', EndpointErrorReason.ENDPOINT_NOT_ENABLED),
};
