import type { IncomingHttpHeaders } from 'node:http';
import type { UnknownWebhookEvent, WebhookEvent } from '../types.js';
import { type DedupeStore, MemoryDedupeStore, dedupeKey } from './dedupe-store.js';
import { MalformedWebhookError, UnknownWebhookEventError, parseWebhookEvent } from './webhook-payload.js';
import { type ClientSecrets, clientSecretList, verifyStandardWebhook, verifyWebhookSignature } from './webhook-signature.js';
import { DEFAULT_REPLAY_TOLERANCE_SECONDS, webhookTimestampProblem } from './webhook-timestamp.js';

/** About the delivery rather than the event: useful for logs. */
export interface WebhookDeliveryMeta {
  /** `X-Platform-Delivery`: the same on every retry of one delivery. */
  deliveryId: string | undefined;
  /** `X-Platform-Attempt`, 1-based. */
  attempt: number | undefined;
  /** The event type, from the signed body. */
  eventName: string;
}

export type WebhookEventListener = (event: WebhookEvent, meta: WebhookDeliveryMeta) => Promise<void> | void;
export type UnknownWebhookEventListener = (event: UnknownWebhookEvent, meta: WebhookDeliveryMeta) => Promise<void> | void;

export interface WebhookHandlerOptions {
  /**
   * Your app's client secret (`whsec_...`), or a list while you rotate it. During the overlap the new
   * secret alone verifies (webhook-signature carries both); `[new, old]` also covers requests already in
   * flight; drop the old one once the rotation has finished. A request is accepted when any of them
   * signed it. Server-side only: never ship it to a browser.
   */
  clientSecret: ClientSecrets;
  /**
   * Runs after the platform has been answered 200; a throw is reported to `onError`, not to the platform.
   * Gets only bodies that match their event's schema (a signed body that does not is answered 400).
   */
  onEvent: WebhookEventListener;
  /**
   * A signed, well-formed body whose event this SDK version does not know (one a later Plaza added): it is
   * answered 200 and never reaches `onEvent`; this runs after the answer, if given. Not deduplicated.
   */
  onUnknownEvent?: UnknownWebhookEventListener;
  /** Where processed (event, purchase_id) pairs are remembered. Default: in memory, last 10,000. */
  seen?: DedupeStore;
  /** Called when `onEvent` or the dedupe store fails. Default: `console.error`. */
  onError?: (error: unknown, meta: WebhookDeliveryMeta | undefined) => void;
  /** Larger bodies are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Replay protection: the Standard Webhooks headers must be present and verify, and `webhook-timestamp`
   * must be within this many seconds of now, either way, so a captured request cannot be replayed later.
   * Default 300 (5 minutes, as the Standard Webhooks libraries). `false` turns the time check off:
   * `webhook-signature` is still the one verified when present, and a request without it is judged by
   * `X-Platform-Signature`, which covers no time.
   */
  replayToleranceSeconds?: number | false;
}

/** What to answer, and what to run once the answer is sent. */
export interface WebhookOutcome {
  status: number;
  message: string;
  process?: () => Promise<void>;
}

export type WebhookReceiver = (rawBody: Buffer, headers: IncomingHttpHeaders) => Promise<WebhookOutcome>;

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

function metaFrom(headers: IncomingHttpHeaders, event: { event: string }): WebhookDeliveryMeta {
  const attempt = Number(headerValue(headers, 'x-platform-attempt'));
  return {
    deliveryId: headerValue(headers, 'x-platform-delivery') ?? headerValue(headers, 'webhook-id'),
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : undefined,
    eventName: event.event,
  };
}

function reportToConsole(error: unknown, meta: WebhookDeliveryMeta | undefined): void {
  const where = meta ? ` (${meta.eventName}, delivery ${meta.deliveryId ?? 'unknown'})` : '';
  console.error(`[@plaza/app-sdk] webhook handling failed${where}:`, error);
}

export function errorReporter(options: Pick<WebhookHandlerOptions, 'onError'>): NonNullable<WebhookHandlerOptions['onError']> {
  return options.onError ?? reportToConsole;
}

/**
 * Why the request is not Plaza's, or undefined when it is. `webhook-signature` is the one checked when
 * present: it covers the timestamp, and during a rotation's overlap it carries the new secret's
 * signature too, while X-Platform-Signature stays on the old one, so a receiver already on the new
 * secret alone would refuse every request if it went by X-Platform-Signature. X-Platform-Signature is
 * the fallback only for a request without `webhook-signature`, and only with replay protection off:
 * with it on, stripping the Standard Webhooks headers must not turn a captured request into one that
 * verifies forever.
 */
function signatureProblem(rawBody: Buffer, headers: IncomingHttpHeaders, clientSecret: ClientSecrets, replayToleranceSeconds: number | false): string | undefined {
  const invalid = 'Invalid webhook signature';
  if (headerValue(headers, 'webhook-signature') === undefined && replayToleranceSeconds === false) {
    return verifyWebhookSignature(rawBody, headerValue(headers, 'x-platform-signature'), clientSecret) ? undefined : invalid;
  }
  // One clock reading for the timestamp and the signature, so a request on the boundary gets one consistent answer.
  const now = new Date();
  if (replayToleranceSeconds !== false) {
    const stale = webhookTimestampProblem(headers, replayToleranceSeconds, now);
    if (stale) return stale;
  }
  const toleranceSeconds = replayToleranceSeconds === false ? Number.POSITIVE_INFINITY : replayToleranceSeconds;
  return verifyStandardWebhook(rawBody, headers, clientSecret, { toleranceSeconds, now: () => now }) ? undefined : invalid;
}

/** The framework-free core shared by the node:http handler and the express middleware. */
export function createWebhookReceiver(options: WebhookHandlerOptions): WebhookReceiver {
  const { clientSecret, onEvent, replayToleranceSeconds = DEFAULT_REPLAY_TOLERANCE_SECONDS } = options;
  if (clientSecretList(clientSecret) === null) throw new TypeError('clientSecret is required: a non-empty string, or a non-empty list of them while rotating');
  if (replayToleranceSeconds !== false && !(Number.isFinite(replayToleranceSeconds) && replayToleranceSeconds > 0)) {
    throw new TypeError('replayToleranceSeconds must be a positive number of seconds, or false to turn replay protection off');
  }
  if (typeof onEvent !== 'function') throw new TypeError('onEvent must be a function');
  if (options.onUnknownEvent !== undefined && typeof options.onUnknownEvent !== 'function') throw new TypeError('onUnknownEvent must be a function when given');
  const seen = options.seen ?? new MemoryDedupeStore();
  const onError = errorReporter(options);

  const unknownEvent = (event: UnknownWebhookEvent, headers: IncomingHttpHeaders): WebhookOutcome => {
    const { onUnknownEvent } = options;
    const meta = metaFrom(headers, event);
    const process = async () => {
      try {
        await onUnknownEvent?.(event, meta);
      } catch (error) {
        onError(error, meta);
      }
    };
    // 200: refusing would have Plaza retry an event this receiver will never know, and disable the webhook.
    return { status: 200, message: `Unknown event ${event.event}: not processed by this receiver`, ...(onUnknownEvent ? { process } : {}) };
  };

  return async (rawBody, headers) => {
    const refusal = signatureProblem(rawBody, headers, clientSecret, replayToleranceSeconds);
    if (refusal) return { status: 401, message: refusal };

    let event: WebhookEvent;
    try {
      event = parseWebhookEvent(rawBody);
    } catch (error) {
      if (error instanceof MalformedWebhookError) return { status: 400, message: error.message };
      if (error instanceof UnknownWebhookEventError) return unknownEvent(error.event, headers);
      throw error;
    }
    const meta = metaFrom(headers, event);
    const key = dedupeKey(event);

    // Claimed before answering: if the store is down, a 5xx makes the platform retry later.
    let firstTime: boolean;
    try {
      firstTime = await seen.claim(key);
    } catch (error) {
      onError(error, meta);
      return { status: 503, message: 'Could not record the event; retry later' };
    }
    if (!firstTime) return { status: 200, message: 'Already processed' };

    const process = async () => {
      try {
        await onEvent(event, meta);
      } catch (error) {
        onError(error, meta);
        try {
          await seen.release(key);
        } catch (releaseError) {
          onError(releaseError, meta);
        }
      }
    };
    return { status: 200, message: 'OK', process };
  };
}
