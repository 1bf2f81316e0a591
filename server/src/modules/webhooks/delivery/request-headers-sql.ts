/**
 * Request headers are kept once per delivery, and only what cannot be known otherwise (they
 * were about half of every attempt row). Every attempt of a delivery sends the same body signature and
 * event; the content type, user agent and delivery id never change, and the attempt number and
 * timestamp are the attempt's own number and start. So a header is stored only where it differs from
 * what these say: the first attempt sent stores its delivery's shared part in `webhook_request_headers`
 * (differences from EXPECTED_FOR_DELIVERY), each attempt in its `request_headers` what differs from the
 * expected and shared ones together (in practice the timestamped signature alone). A JSON null marks an
 * expected header that was not sent. Reading composes them back, exactly as sent, whatever was sent.
 * The sending process splits and compacts them (request-headers.ts storedHeaders, for scheduled and manual
 * attempts alike); these are the SQL expressions, built once, that read them back, and that work an attempt's
 * part out again where its delivery's stored shared part is another than the one it split against.
 */

import { BODY_SIGNATURE_HEADER, CONSTANT_HEADERS, DELIVERY_ID_HEADERS, EVENT_HEADER } from './request-headers.js';

/** A constant of request-headers.ts as an SQL string literal. */
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** The headers every delivery `deliveryId` is expected to send (request-headers.ts CONSTANT_HEADERS, DELIVERY_ID_HEADERS). */
const expectedForDelivery = (deliveryId: string) =>
  `jsonb_build_object(${[...Object.entries(CONSTANT_HEADERS).map(([name, value]) => `${literal(name)}, ${literal(value)}`), ...DELIVERY_ID_HEADERS.map((name) => `${literal(name)}, ${deliveryId}`)].join(', ')})`;

/**
 * The headers an attempt is expected to send besides its own signature: its delivery's expected and
 * stored shared ones (`shared`; null when none are stored), its number and start second. Computed once
 * per row: `expectedOnce` makes it a column of its own for `attemptHeaders` to compare with.
 */
const expectedForAttempt = (shared: string, deliveryId: string, number: string, startedAt: string) =>
  `jsonb_strip_nulls(${expectedWithMarkers(shared, deliveryId, number, startedAt)})`;

/** As expectedForAttempt, with the shared part's nulls (expected headers not sent) still in. */
const expectedWithMarkers = (shared: string, deliveryId: string, number: string, startedAt: string) =>
  `${expectedForDelivery(deliveryId)} || jsonb_build_object('x-platform-attempt', ${number}::text, 'webhook-timestamp', floor(extract(epoch FROM ${startedAt}))::bigint::text) || COALESCE(${shared}, '{}'::jsonb)`;

/**
 * A FROM item (`alias`.expected) with what an attempt is expected to send. OFFSET 0 keeps PostgreSQL from
 * folding it into each place it is used: written inline, the expression was built again for every header
 * compared, and an attempt's record cost about 170 µs of PostgreSQL CPU instead of a few.
 */
export const expectedOnce = (alias: string, shared: string, deliveryId: string, number: string, startedAt: string) =>
  `LATERAL (SELECT ${expectedForAttempt(shared, deliveryId, number, startedAt)} AS expected OFFSET 0) ${alias}`;

/**
 * What `headers` (jsonb) add to `expected`: each header whose value differs, and null for an expected one
 * it lacks. Null when nothing was sent, `{}` when it sent exactly the expected headers. The usual case,
 * exactly the expected headers and a signature, is checked first with one comparison.
 */
const differences = (headers: string, expected: string) => `CASE WHEN ${headers} IS NULL THEN NULL
         WHEN ${headers} = ${expected} || jsonb_build_object('webhook-signature', ${headers} -> 'webhook-signature')
           THEN jsonb_build_object('webhook-signature', ${headers} -> 'webhook-signature')
         ELSE COALESCE((
         SELECT jsonb_object_agg(c.key, c.value) FROM (
           SELECT sent.key, sent.value FROM jsonb_each(${headers}) sent WHERE (${expected}) -> sent.key IS DISTINCT FROM sent.value
           UNION ALL
           SELECT unsent.key, 'null'::jsonb FROM jsonb_each(${expected}) unsent WHERE NOT (${headers} ? unsent.key)) c), '{}'::jsonb) END`;

/** What an attempt keeps of the `headers` it sent, given what it was expected to send (`expected`: a column from expectedOnce). */
export const attemptHeaders = (headers: string, expected: string) => differences(headers, expected);

/** An attempt's headers exactly as sent, from what it keeps (`kept`) and its delivery's stored shared part (one pass drops every null marker). */
export const headersAsSent = (kept: string, shared: string, deliveryId: string, number: string, startedAt: string) =>
  `CASE WHEN ${kept} IS NULL THEN NULL ELSE jsonb_strip_nulls(${expectedWithMarkers(shared, deliveryId, number, startedAt)} || ${kept}) END`;

/**
 * RECORD_ATTEMPTS' (sql-fragments.ts) record of an attempt's headers (`r`: its input row with the worker's split, request-headers.ts;
 * `same`: whether its delivery's shared part as stored is the worker's; `stored`: that part, as storedShared
 * reads it). Usually the worker's `kept` as it is; when the stored shared part is another (a rotation
 * changed the body signature since the first attempt, or a first attempt of the same delivery elsewhere
 * stored it) or none is visible, worked out here against it.
 */
export const attemptHeadersFromWorker = (r: string, same: string, stored: string) => `CASE WHEN ${r}.headers IS NULL THEN NULL
         WHEN ${same} THEN ${r}.kept
         ELSE (SELECT ${differences(`${r}.headers`, 'e.expected')} FROM ${expectedOnce('e', stored, `${r}.delivery_id`, `${r}.number`, `${r}.started_at`)}) END`;

/**
 * What an attempt keeps (as the jsonb `attemptHeaders` gives) from its columns: the usual lone signature is
 * stored as its 32 bytes (`signature`, request_signature; request-headers.ts compactSignature), anything
 * else as JSON (`kept`, request_headers). The header value is rebuilt exactly: `v1,` and canonical base64.
 */
export const keptHeaders = (kept: string, signature: string) =>
  `CASE WHEN ${signature} IS NOT NULL THEN jsonb_build_object('webhook-signature', 'v1,' || encode(${signature}, 'base64')) ELSE ${kept} END`;

/**
 * The URL an attempt was sent to is kept once per delivery too (webhook_request_headers.url, stored with
 * the shared headers by the first attempt sent): an attempt sent to that same URL stores null. An attempt
 * not sent (no headers) stores its own, null or not, so that a null there still reads as null.
 * `url`: where it was sent; `sent`: whether it was (its headers are not null); `stored`: the delivery's.
 */
export const urlToKeep = (url: string, sent: string, stored: string) => `CASE WHEN ${sent} AND ${url} = ${stored} THEN NULL ELSE ${url} END`;

/** An attempt `a`'s URL as sent, from its own and its delivery's stored `shared` one (urlToKeep says how). */
export const urlAsSent = (a: string, shared: string) =>
  `COALESCE(${a}.url, CASE WHEN ${a}.request_headers IS NOT NULL OR ${a}.request_signature IS NOT NULL THEN ${shared}.url END)`;

const EVENT = literal(EVENT_HEADER);
const BODY_SIGNATURE = literal(BODY_SIGNATURE_HEADER);

/**
 * A delivery's shared headers (as splitHeaders gives them) from its webhook_request_headers row: `headers`
 * (the JSON kept), `bodySignature` (the usual body signature's 32 bytes) and the delivery's `eventType`,
 * which the event header says unless the JSON says otherwise (a JSON null there: not sent). Null when
 * there is no row (both null). request-headers.ts compactShared says how they are stored.
 */
export const storedShared = (headers: string, bodySignature: string, eventType: string) => `CASE WHEN ${bodySignature} IS NULL AND ${headers} IS NULL THEN NULL
         ELSE (CASE WHEN ${headers} -> ${EVENT} = 'null'::jsonb THEN ${headers} - ${EVENT}
                    ELSE jsonb_build_object(${EVENT}, ${eventType}::text) || COALESCE(${headers}, '{}'::jsonb) END)
           || CASE WHEN ${bodySignature} IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(${BODY_SIGNATURE}, 'sha256=' || encode(${bodySignature}, 'hex')) END END`;
