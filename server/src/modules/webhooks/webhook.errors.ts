import { conflict, ErrorCode, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of the webhooks feature's refusals: stable values clients branch on (the messages are for people). */
export const WebhookErrorReason = {
  /** CONFLICT: redelivering or forwarding a delivery whose body was deleted (WEBHOOK_BODY_RETENTION). Raised in delivery/delivery-recovery.ts. */
  BODY_NOT_KEPT: 'BODY_NOT_KEPT',
  /** CONFLICT: sending deliveries again while their endpoint is disabled after sustained failure (the second round's name). */
  WEBHOOK_DISABLED: 'WEBHOOK_DISABLED',
  /** CONFLICT: sending a delivery again while its endpoint is paused by its owner. */
  ENDPOINT_PAUSED: 'ENDPOINT_PAUSED',
  /** CONFLICT: sending a delivery again whose endpoint was deleted: there is nowhere to send it. */
  ENDPOINT_DELETED: 'ENDPOINT_DELETED',
  /** CONFLICT: the endpoint changed state while a redelivery was being reserved; asking again says how it stands. */
  ENDPOINT_NOT_ENABLED: 'ENDPOINT_NOT_ENABLED',
  /** CONFLICT: the app has WEBHOOK_ENDPOINTS_PER_APP endpoints already. */
  TOO_MANY_ENDPOINTS: 'TOO_MANY_ENDPOINTS',
  /** BAD_USER_INPUT on an endpoint's url: plain http where WEBHOOK_ALLOW_PRIVATE_URLS does not allow it (the app's Webhook URL's reason too). */
  WEBHOOK_NOT_HTTPS: 'WEBHOOK_NOT_HTTPS',
  /** BAD_USER_INPUT on an endpoint's url: a loopback, private or otherwise internal address (the app's Webhook URL's reason too). */
  WEBHOOK_INTERNAL_ADDRESS: 'WEBHOOK_INTERNAL_ADDRESS',
  /** BAD_USER_INPUT on webhookUrl: a test event for an app with no webhook URL. */
  NO_WEBHOOK_URL: 'NO_WEBHOOK_URL',
  /** RATE_LIMITED: the app has had its WEBHOOK_TEST_EVENTS_PER_MINUTE test events in the last minute. */
  TOO_MANY_TEST_EVENTS: 'TOO_MANY_TEST_EVENTS',
} as const;
export type WebhookErrorReason = (typeof WebhookErrorReason)[keyof typeof WebhookErrorReason];

export const webhookErrors = {
  /** Sending a delivery again needs its body, and it is no longer kept. */
  bodyGone: () =>
    conflict('This delivery’s body is no longer kept: it is older than WEBHOOK_BODY_RETENTION, so it cannot be sent again. Nothing was changed.', WebhookErrorReason.BODY_NOT_KEPT),
  /** Sending deliveries again (one, or a recovery) while their endpoint is disabled after sustained failure. */
  webhookDisabled: () =>
    conflict(
      'This webhook endpoint is disabled after sustained failures: enable it (resumeWebhookEndpoint, or enableWebhook for the app) before sending its deliveries again. Nothing was sent or recorded.',
      WebhookErrorReason.WEBHOOK_DISABLED,
    ),
  tooManyEndpoints: (limit: number) =>
    conflict(
      `This app has ${limit} webhook endpoints, the most an app may have (WEBHOOK_ENDPOINTS_PER_APP); delete one, or send several kinds of events to one endpoint`,
      WebhookErrorReason.TOO_MANY_ENDPOINTS,
    ),
  endpointPaused: () =>
    conflict(
      'This delivery’s endpoint is paused: resume it (resumeWebhookEndpoint) before sending its deliveries again. Nothing was sent or recorded.',
      WebhookErrorReason.ENDPOINT_PAUSED,
    ),
  endpointDeleted: () => conflict('This delivery’s endpoint was deleted, so there is nowhere to send it. Nothing was sent or recorded.', WebhookErrorReason.ENDPOINT_DELETED),
  endpointNotEnabled: () => conflict('This delivery could not be sent again just now; nothing was sent or recorded. Try again.', WebhookErrorReason.ENDPOINT_NOT_ENABLED),
  endpointNotHttps: (field: string) => new PlazaError(ErrorCode.BAD_USER_INPUT, `${field} must use HTTPS (https://...)`, field, WebhookErrorReason.WEBHOOK_NOT_HTTPS),
  endpointInternal: (field: string, why: string) =>
    new PlazaError(ErrorCode.BAD_USER_INPUT, `${field} cannot point at an internal address: ${why}`, field, WebhookErrorReason.WEBHOOK_INTERNAL_ADDRESS),
  noWebhookUrl: () => new PlazaError(ErrorCode.BAD_USER_INPUT, 'This app has no webhook URL; set one before sending a test event', 'webhookUrl', WebhookErrorReason.NO_WEBHOOK_URL),
  tooManyTestEvents: (allowed: number, retryAfterSeconds: number) => {
    const error = new PlazaError(
      ErrorCode.RATE_LIMITED,
      `At most ${allowed} test events a minute per app; try again in ${retryAfterSeconds} s`,
      undefined,
      WebhookErrorReason.TOO_MANY_TEST_EVENTS,
    );
    error.extensions.retryAfterSeconds = retryAfterSeconds;
    return error;
  },
};
