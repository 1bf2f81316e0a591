import { encodeTime } from 'ulid';
import { randomBytes } from 'node:crypto';
import { TEST_PURCHASE_SUFFIX } from '@plaza/shared';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// The ulid package asks the CSPRNG once per character; at thousands of ids a second that showed up as a
// tenth of the CPU. Draw randomness in blocks instead (5 bits per byte: uniform, since 256 is a multiple of 32).
let randomPool = Buffer.alloc(0);
let randomOffset = 0;
function randomCrockford(length: number): string {
  if (randomOffset + length > randomPool.length) {
    randomPool = randomBytes(4096);
    randomOffset = 0;
  }
  let text = '';
  // The refill above keeps randomOffset + length within the pool.
  for (let i = 0; i < length; i++) text += CROCKFORD[randomPool[randomOffset++]! & 31];
  return text;
}

/** `text` (Crockford base32) plus one, or undefined when every character is already the last (it would overflow). */
function incrementCrockford(text: string): string | undefined {
  for (let i = text.length - 1; i >= 0; i--) {
    const digit = CROCKFORD.indexOf(text[i]!);
    if (digit < CROCKFORD.length - 1) return text.slice(0, i) + CROCKFORD[digit + 1] + '0'.repeat(text.length - i - 1);
  }
  return undefined;
}

/** The time and randomness of the newest ULID made in this process (randomFor). */
let newestTime = -1;
let newestRandom = '';

/**
 * A ULID's randomness for `time`. In the millisecond of the newest one made here it is that one's plus one (the ULID
 * spec's monotonic mode), so ids made one after another in a process sort in the order they were made even within a
 * millisecond: the Webhook Logs list newest first by id, and two events recorded in one millisecond were listed in
 * either order. A ULID for an earlier time (an event's own, given) gets fresh randomness and leaves the newest be.
 */
function randomFor(time: number): string {
  if (time === newestTime) {
    const next = incrementCrockford(newestRandom);
    // 2^80 ids in one millisecond: never in practice; fresh randomness then, unordered.
    if (next !== undefined) return (newestRandom = next);
  }
  const random = randomCrockford(16);
  if (time >= newestTime) [newestTime, newestRandom] = [time, random];
  return random;
}

/** A ULID: 10 characters of millisecond time, 16 of randomness (80 bits), sortable by creation time (monotonic within a millisecond here: randomFor). */
export const ulid = (now = Date.now()) => `${encodeTime(now, 10)}${randomFor(now)}`;

/** Prefixed ULIDs: sortable by creation time, and the prefix says what an id names. */
export const newId = {
  app: () => `app_${ulid()}`,
  reviewDecision: () => `rvw_${ulid()}`,
  notification: () => `ntf_${ulid()}`,
  apiToken: () => `tok_${ulid()}`,
  session: () => `ses_${ulid()}`,
  secretAudit: () => `aud_${ulid()}`,
};

/** A credential's visible value: a prefix saying what it is, then 32 random bytes. */
export const newCredential = (prefix: 'plz_s_' | 'plz_at_') => `${prefix}${randomBytes(32).toString('base64url')}`;

/** `APP-<unix ms>-<6 Crockford base32 characters>`: sorts by time and reads aloud without ambiguity; uniqueness is enforced by the database. */
export function newPurchaseId(now = Date.now()): string {
  let suffix = randomCrockford(6);
  // The TEST prefix is kept for test events (newTestPurchaseId), so a real purchase is never taken for one.
  while (suffix.startsWith(TEST_PURCHASE_SUFFIX)) suffix = randomCrockford(6);
  return `APP-${now}-${suffix}`;
}

/** A test event's purchase_id: the same shape as a real one, recognisably `APP-<unix ms>-TEST..`; it names no purchase. */
export const newTestPurchaseId = (now = Date.now()) => `APP-${now}-${TEST_PURCHASE_SUFFIX}${randomCrockford(2)}`;

const TEST_PURCHASE_ID = new RegExp(`^APP-\\d+-${TEST_PURCHASE_SUFFIX}`);
export const isTestPurchaseId = (purchaseId: string) => TEST_PURCHASE_ID.test(purchaseId);

/** Event and delivery ids carry the event's own time, so time filters on ids agree with createdAt to the millisecond. */
export const newWebhookId = {
  event: (at: number) => `evt_${ulid(at)}`,
  delivery: (at: number) => `dlv_${ulid(at)}`,
};
