import type { GuardedResponse } from '../../../platform/outbound-http/guarded-http-client.js';
import {
  activeSpanContext,
  contextWithParent,
  inSpan,
  recordFailure,
  recordSpan,
  redactedUrl,
  spanContextFrom,
  SpanKind,
  traceparentOf,
  tracingOn,
  type Link,
  type SpanContext,
} from '../../../platform/tracing.js';
import type { AttemptResult } from './attempt-results.js';
import type { ClaimedDelivery } from './delivery-queries.js';

/**
 * The delivery engine's spans, when tracing is on: a claim that found work, linked to the trace of every delivery
 * it claimed, and each attempt's POST, a child of the span that recorded its event (the purchase's trace, stored
 * with the delivery as its traceparent), linked to its claim. Off, every function here returns at its first line.
 */

/** The claim span of each delivery claimed here, for its attempt's link. */
const claimOf = new WeakMap<ClaimedDelivery, SpanContext>();

/** The span of each delivery's attempt sent here (its latest), for the links of the write that records it or the hand-back that interrupts it. */
const attemptOf = new WeakMap<ClaimedDelivery, SpanContext>();

/** Links to the attempt spans of `deliveries` (the first MAX_CLAIM_LINKS that have one), each naming its delivery. */
function attemptLinks(deliveries: Iterable<ClaimedDelivery>): Link[] {
  const links: Link[] = [];
  for (const delivery of deliveries) {
    const attempt = attemptOf.get(delivery);
    if (attempt && links.length < MAX_CLAIM_LINKS) links.push({ context: attempt, attributes: { 'plaza.delivery.id': delivery.id } });
  }
  return links;
}

/** One claim span links at most this many deliveries' traces (a batch can hold hundreds; the first ones say enough). */
const MAX_CLAIM_LINKS = 128;

/** Records a claim that returned deliveries (a claim that found none makes no span: the worker polls). */
export function traceClaim(claimed: ClaimedDelivery[], startedAt: number, statement: string): void {
  if (!tracingOn() || claimed.length === 0) return;
  const links: Link[] = [];
  for (const delivery of claimed) {
    const recorded = spanContextFrom(delivery.trace_parent);
    if (recorded && links.length < MAX_CLAIM_LINKS) links.push({ context: recorded, attributes: { 'plaza.delivery.id': delivery.id } });
  }
  const claim = recordSpan('webhook.deliveries.claim', startedAt, { 'messaging.batch.message_count': claimed.length, 'db.query.summary': statement }, links);
  if (claim) for (const delivery of claimed) claimOf.set(delivery, claim);
}

/**
 * Sends one attempt through `post` inside its span (`POST`, a client span) and gives the receiver that span as
 * `traceparent`, so a receiver that traces joins the purchase's trace. The span links to what sent it: the claim
 * that took it, or, for a manual attempt (redeliverWebhook), the request that asked, whose trace is another. The
 * stored request headers are the caller's `headers`, without it. Off: `post(headers)`, the very same request as without tracing.
 */
export function traceAttempt(
  delivery: ClaimedDelivery,
  number: number,
  url: string,
  headers: Record<string, string>,
  post: (headers: Record<string, string>) => Promise<GuardedResponse>,
): Promise<GuardedResponse> {
  if (!tracingOn()) return post(headers);
  const recorded = spanContextFrom(delivery.trace_parent);
  // A manual attempt has no claim: the request that asked for it (active here) is what sent it.
  const sentBy = claimOf.get(delivery) ?? activeSpanContext();
  // The purchase's trace; a delivery recorded untraced continues its claim's (or, a manual attempt, the request's).
  const parent = recorded ?? sentBy;
  return inSpan(
    'POST',
    () => {
      const target = URL.canParse(url) ? new URL(url) : undefined;
      return {
        'http.request.method': 'POST',
        'url.full': redactedUrl(url),
        ...(target ? { 'server.address': target.hostname, 'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80) } : {}),
        'plaza.delivery.id': delivery.id,
        'plaza.webhook.attempt': number,
        'plaza.webhook.event': delivery.event_type,
      };
    },
    async (span) => {
      if (span) attemptOf.set(delivery, span.spanContext());
      const traceparent = span ? traceparentOf(span.spanContext()) : null;
      const response = await post(traceparent ? { ...headers, traceparent } : headers);
      if (span && response.statusCode !== null) span.setAttribute('http.response.status_code', response.statusCode);
      // Anything but a 2xx is an error here (the client says why): a refused attempt, a redirect not followed, a timeout.
      if (span && response.error !== null) recordFailure(span, new Error(response.error), response.statusCode === null ? 'connection' : String(response.statusCode));
      return response;
    },
    { kind: SpanKind.CLIENT, parent: parent ? contextWithParent(parent) : undefined, links: recorded && sentBy ? [{ context: sentBy }] : [] },
  );
}

/**
 * Runs one batched write of attempt results (`webhook.attempts.record`, its statements its children) as a span of
 * its own, with the number of results and a link to each attempt it records. Off: `write()` as it is.
 */
export function traceResultsWrite(results: readonly AttemptResult[], write: () => Promise<void>): Promise<void> {
  if (!tracingOn()) return write();
  return inSpan('webhook.attempts.record', () => ({ 'messaging.batch.message_count': results.length }), write, {
    // A write gathers many purchases' attempts: a trace of its own, linked to each, not a child of whichever came first.
    parent: contextWithParent(undefined),
    links: attemptLinks(results.map((result) => result.delivery)),
  });
}

/**
 * Runs a shutdown's hand-back of the deliveries whose attempts were still in flight (`webhook.deliveries.hand_back`)
 * as a span, with their number and a link to each interrupted attempt. Off: `release()` as it is.
 */
export function traceHandBack<T>(held: readonly ClaimedDelivery[], release: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return release();
  return inSpan('webhook.deliveries.hand_back', () => ({ 'messaging.batch.message_count': held.length }), release, {
    parent: contextWithParent(undefined),
    links: attemptLinks(held),
  });
}
