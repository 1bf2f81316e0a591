/**
 * Request headers are kept once per delivery, and only what cannot be known otherwise (issue 19: they
 * were about half of every attempt row). Every attempt of a delivery sends the same body signature and
 * event; the content type, user agent and delivery id never change, and the attempt number and
 * timestamp are the attempt's own number and start. So a header is stored only where it differs from
 * what these say: the first attempt sent stores its delivery's shared part in `webhook_request_headers`
 * (differences from EXPECTED_FOR_DELIVERY), each attempt in its `request_headers` what differs from the
 * expected and shared ones together (in practice the timestamped signature alone). A JSON null marks an
 * expected header that was not sent. Reading composes them back, exactly as sent, whatever was sent.
 * SQL expressions, built once, for the statements that write and read attempts.
 */

/** Headers that change with every attempt by construction (webhook-signing.ts): never part of the shared ones. */
export const PER_ATTEMPT_HEADERS = ['x-platform-attempt', 'webhook-timestamp', 'webhook-signature'] as const;

const PER_ATTEMPT = `'{${PER_ATTEMPT_HEADERS.join(',')}}'::text[]`;

/**
 * The headers every delivery `deliveryId` is expected to send. Stored rows are read against this: a
 * value changed here must be added, not replaced (a row written before would read differently).
 */
const expectedForDelivery = (deliveryId: string) =>
  `jsonb_build_object('content-type', 'application/json', 'user-agent', 'Plaza-Webhooks/1.0', 'x-platform-delivery', ${deliveryId}, 'webhook-id', ${deliveryId})`;

/** The headers an attempt is expected to send before its own: its delivery's expected and stored shared ones, its number and start second. */
const expectedForAttempt = (shared: string, deliveryId: string, number: string, startedAt: string) =>
  `jsonb_strip_nulls(${expectedForDelivery(deliveryId)} || jsonb_build_object('x-platform-attempt', ${number}::text, 'webhook-timestamp', floor(extract(epoch FROM ${startedAt}))::bigint::text) || COALESCE(${shared}, '{}'::jsonb))`;

/**
 * What `headers` (jsonb) add to `expected`: each header whose value differs, and null for an expected one
 * it lacks. Null when nothing was sent, `{}` when it sent exactly the expected headers.
 */
const differences = (headers: string, expected: string) => `CASE WHEN ${headers} IS NULL THEN NULL ELSE COALESCE((
         SELECT jsonb_object_agg(c.key, c.value) FROM (
           SELECT sent.key, sent.value FROM jsonb_each(${headers}) sent WHERE (${expected}) -> sent.key IS DISTINCT FROM sent.value
           UNION ALL
           SELECT unsent.key, 'null'::jsonb FROM jsonb_each(${expected}) unsent WHERE NOT (${headers} ? unsent.key)) c), '{}'::jsonb) END`;

/** The shared part of the headers an attempt of delivery `deliveryId` sent, as `webhook_request_headers.headers` keeps it. */
export const sharedHeaders = (headers: string, deliveryId: string) => differences(`(${headers} - ${PER_ATTEMPT})`, expectedForDelivery(deliveryId));

/** What an attempt keeps of the `headers` it sent, given its delivery's stored shared part (`shared`; null when none is stored). */
export const attemptHeaders = (headers: string, shared: string, deliveryId: string, number: string, startedAt: string) =>
  differences(headers, expectedForAttempt(shared, deliveryId, number, startedAt));

/** An attempt's headers exactly as sent, from what it keeps (`kept`) and its delivery's stored shared part. */
export const headersAsSent = (kept: string, shared: string, deliveryId: string, number: string, startedAt: string) =>
  `CASE WHEN ${kept} IS NULL THEN NULL ELSE jsonb_strip_nulls(${expectedForAttempt(shared, deliveryId, number, startedAt)} || ${kept}) END`;
