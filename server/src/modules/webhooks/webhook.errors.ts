import { ErrorCode, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of the webhooks feature's refusals: stable values clients branch on (the messages are for people). */
export const WebhookErrorReason = {
  /** CONFLICT: redelivering or forwarding a delivery whose body was deleted (WEBHOOK_BODY_RETENTION). Raised in delivery/delivery-recovery.ts. */
  BODY_NOT_KEPT: 'BODY_NOT_KEPT',
  /** CONFLICT: sending deliveries again while the app's webhook is disabled. Raised in delivery/delivery-recovery.ts. */
  WEBHOOK_DISABLED: 'WEBHOOK_DISABLED',
  /** BAD_USER_INPUT on webhookUrl: a test event for an app with no webhook URL. */
  NO_WEBHOOK_URL: 'NO_WEBHOOK_URL',
  /** RATE_LIMITED: the app has had its WEBHOOK_TEST_EVENTS_PER_MINUTE test events in the last minute. */
  TOO_MANY_TEST_EVENTS: 'TOO_MANY_TEST_EVENTS',
} as const;
export type WebhookErrorReason = (typeof WebhookErrorReason)[keyof typeof WebhookErrorReason];

export const webhookErrors = {
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
