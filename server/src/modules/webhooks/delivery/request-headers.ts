/**
 * How an attempt's request headers are kept: once per delivery, and only what cannot be known
 * otherwise. Every attempt, scheduled or manual, is split and compacted here, by the process that sent
 * it (storedHeaders), so that recording it (sql-fragments.ts RECORD_ATTEMPTS) compares two small values
 * instead of working the headers out in PostgreSQL. delivery/request-headers-sql.ts reads them back, and
 * works an attempt's part out again only when its delivery's stored shared part is another than its own
 * (a rotation since the first attempt); both are built from the constants here.
 */

/** Headers that change with every attempt by construction (webhook-signing.ts): never part of the shared ones. */
export const PER_ATTEMPT_HEADERS = ['x-platform-attempt', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Headers every delivery is expected to send with these values. Stored rows are read against them: a
 * value changed here must be added, not replaced (a row written before would read differently).
 */
export const CONSTANT_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json', 'user-agent': 'Plaza-Webhooks/1.0' };

/** Headers every delivery is expected to send with its own id as the value. */
export const DELIVERY_ID_HEADERS = ['x-platform-delivery', 'webhook-id'] as const;

type Headers = Record<string, string>;
/** Headers as kept: a null marks an expected header that was not sent. */
export type KeptHeaders = Record<string, string | null>;

/** What `headers` add to `expected`: each header whose value differs, and null for an expected one it lacks. */
function differences(headers: Headers, expected: Record<string, string | null>): KeptHeaders {
  const kept: KeptHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (expected[name] !== value) kept[name] = value;
  for (const [name, value] of Object.entries(expected)) if (value !== null && !Object.hasOwn(headers, name)) kept[name] = null;
  return kept;
}

/**
 * The parts an attempt's headers are kept as: `shared`, what its delivery's attempts share beyond the
 * expected headers (stored once per delivery; the first attempt's stands), and `kept`, what this attempt
 * adds to the expected and shared ones (in practice its timestamped signature alone).
 */
export function splitHeaders(headers: Headers, deliveryId: string, number: number, startedAt: Date): { shared: KeptHeaders; kept: KeptHeaders } {
  const forDelivery: Headers = { ...CONSTANT_HEADERS };
  for (const name of DELIVERY_ID_HEADERS) forDelivery[name] = deliveryId;
  const common: Headers = { ...headers };
  for (const name of PER_ATTEMPT_HEADERS) delete common[name];
  const shared = differences(common, forDelivery);
  const expected: Record<string, string | null> = {
    ...forDelivery,
    'x-platform-attempt': String(number),
    'webhook-timestamp': String(Math.floor(startedAt.getTime() / 1000)),
    ...shared,
  };
  return { shared, kept: differences(headers, expected) };
}

/** The one signature of the usual attempt: `v1,` and the 32 bytes of an HMAC-SHA256, in canonical base64. */
const USUAL_SIGNATURE = /^v1,[A-Za-z0-9+/]{43}=$/;

/**
 * The attempt's signature bytes (base64) when what it keeps is exactly its one timestamped signature, as
 * almost every attempt's is: stored as 32 bytes (request_signature) instead of about 80 of JSON, and
 * rebuilt to the very same header value when read (request-headers-sql.ts keptHeaders). Null otherwise
 * (a rotation's overlap signs twice, another header differs...): those keep their JSON as before.
 */
export function compactSignature(kept: KeptHeaders): string | null {
  const names = Object.keys(kept);
  const signature = kept['webhook-signature'];
  if (names.length !== 1 || typeof signature !== 'string' || !USUAL_SIGNATURE.test(signature)) return null;
  const base64 = signature.slice(3);
  // Canonical only (its unused low bits zero): anything else would read back as another string.
  return Buffer.from(base64, 'base64').toString('base64') === base64 ? base64 : null;
}

/** The headers compactShared stores in other ways than JSON. */
export const BODY_SIGNATURE_HEADER = 'x-platform-signature';
export const EVENT_HEADER = 'x-platform-event';

/** The body signature header's usual value: `sha256=` and the 32 bytes of an HMAC-SHA256 in lowercase hex (webhook-signing.ts platformSignature). */
const USUAL_BODY_SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/**
 * A delivery's shared headers (splitHeaders `shared`) as webhook_request_headers stores them:
 * the usual body signature as its 32 bytes (`bodySignature`, hex; body_signature), the event header left
 * out when it says the delivery's own event type (a JSON null there when it was not sent at all), and
 * the JSON (`headers`) only for anything else, null when nothing else is left. Read back exactly by
 * request-headers-sql.ts storedShared.
 */
export function compactShared(shared: KeptHeaders, eventType: string): { headers: KeptHeaders | null; bodySignature: string | null } {
  const rest: KeptHeaders = { ...shared };
  const signature = rest[BODY_SIGNATURE_HEADER];
  const bodySignature = typeof signature === 'string' && USUAL_BODY_SIGNATURE.test(signature) ? signature.slice('sha256='.length) : null;
  if (bodySignature !== null) delete rest[BODY_SIGNATURE_HEADER];
  if (!Object.hasOwn(rest, EVENT_HEADER)) rest[EVENT_HEADER] = null;
  else if (rest[EVENT_HEADER] === eventType) delete rest[EVENT_HEADER];
  return { headers: bodySignature !== null && Object.keys(rest).length === 0 ? null : rest, bodySignature };
}

/**
 * An attempt's headers as they are recorded (sql-fragments.ts ATTEMPT_RECORD_COLUMNS): the split, the usual lone
 * signature as bytes (`signature`, base64) instead of JSON (`kept` then null), and the delivery's shared headers
 * as compactShared keeps them (`shared`, `shared_signature` hex). All null for an attempt that sent nothing.
 */
export function storedHeaders(headers: Headers | null, deliveryId: string, number: number, startedAt: Date, eventType: string) {
  if (headers === null) return { event_type: eventType, shared: null, shared_signature: null, kept: null, signature: null };
  const { shared, kept } = splitHeaders(headers, deliveryId, number, startedAt);
  const signature = compactSignature(kept);
  const stored = compactShared(shared, eventType);
  return { event_type: eventType, shared: stored.headers, shared_signature: stored.bodySignature, kept: signature === null ? kept : null, signature };
}
