import type { DataSource } from 'typeorm';
import { newWebhookId } from '../../platform/ids.js';
import { SETTLED_STATUSES, sqlLiterals } from './delivery/delivery-queries.js';

const SETTLED = sqlLiterals(...SETTLED_STATUSES);

/** Rows deleted per statement: small enough that each delete holds its locks and WAL briefly. */
const PRUNE_BATCH = 5_000;

/**
 * Deletes the attempts of finished (SUCCEEDED or FAILED) deliveries created more than `retentionMs`
 * ago; the deliveries stay, with their status and attempt count. Delivery ids start with their
 * creation time (ULID), so "older than" is a range of the attempts' primary key, with no index of
 * its own to maintain on the delivery path. Returns how many attempts it deleted (their deliveries'
 * shared request headers go too).
 */
export async function pruneOldAttempts(db: DataSource, retentionMs: number, now = Date.now(), shouldStop: () => boolean = () => false): Promise<number> {
  // The smallest id a delivery created at the cutoff can have: the prefix and the time part of its ULID.
  const cutoffId = newWebhookId.delivery(now - retentionMs).slice(0, 'dlv_'.length + 10);
  let deleted = 0;
  for (;;) {
    const [, count]: [unknown, number] = await db.query(
      `DELETE FROM webhook_attempts a
        USING (SELECT a2.delivery_id, a2.number
                 FROM webhook_attempts a2 JOIN webhook_deliveries d ON d.id = a2.delivery_id
                WHERE a2.delivery_id < $1 AND d.status IN (${SETTLED})
                LIMIT ${PRUNE_BATCH}) old
        WHERE a.delivery_id = old.delivery_id AND a.number = old.number`,
      [cutoffId],
    );
    deleted += count;
    if (shouldStop()) return deleted;
    if (count < PRUNE_BATCH) break;
  }
  // The headers their attempts shared (request-headers-sql.ts) go with them: nothing else reads them.
  for (;;) {
    const [, count]: [unknown, number] = await db.query(
      `DELETE FROM webhook_request_headers h
        USING (SELECT h2.delivery_id
                 FROM webhook_request_headers h2 JOIN webhook_deliveries d ON d.id = h2.delivery_id
                WHERE h2.delivery_id < $1 AND d.status IN (${SETTLED})
                LIMIT ${PRUNE_BATCH}) old
        WHERE h.delivery_id = old.delivery_id`,
      [cutoffId],
    );
    if (count < PRUNE_BATCH || shouldStop()) return deleted;
  }
}

/** The hourly rollup covers the charts' longest window (7 days) and a day to spare. */
export const HOURLY_ROLLUP_RETENTION_MS = 8 * 24 * 3_600_000;
/** The per-minute rollup serves the platform's last hour; a day is kept. */
export const MINUTELY_ROLLUP_RETENTION_MS = 24 * 3_600_000;

/** Deletes the charts' rollup rows past what any chart reads (they are small: one row per app and hour or minute). */
export async function pruneOldRollups(db: DataSource, now = Date.now()): Promise<number> {
  const [, hours]: [unknown, number] = await db.query('DELETE FROM webhook_attempt_hourly WHERE hour < $1', [new Date(now - HOURLY_ROLLUP_RETENTION_MS)]);
  const [, minutes]: [unknown, number] = await db.query('DELETE FROM webhook_attempt_minutely WHERE minute < $1', [new Date(now - MINUTELY_ROLLUP_RETENTION_MS)]);
  return hours + minutes;
}
