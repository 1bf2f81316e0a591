import type { DataSource } from 'typeorm';
import { newWebhookId } from '../../platform/ids.js';
import { logger } from '../../platform/logger.js';
import { defaultPartitionName, dropPartitionsBefore, ensurePartitions, PARTITION_SPAN_MS, type TimePartitionedTable } from '../../platform/time-partitions.js';
import { sqlLiterals } from '../../platform/sql-literals.js';
import { SETTLED_STATUSES } from './delivery/delivery-lifecycle.js';

const SETTLED = sqlLiterals(...SETTLED_STATUSES);

/** Rows deleted per statement: small enough that each delete holds its locks and WAL briefly. */
const PRUNE_BATCH = 5_000;

/**
 * Attempts and their deliveries' shared request headers are partitioned by delivery id, a week per
 * partition (migration 1796000023000, PARTITION_SPAN_MS): retention drops a week at once. An attempt is inserted once,
 * whole, when it ends (in flight it is in webhook_open_attempts), so its pages are filled to the brim: no room is kept
 * for an update (migration 1796000036000; 70 before, when the outcome was written over the started row).
 */
export const ATTEMPT_PARTITIONS: TimePartitionedTable = { table: 'webhook_attempts', keyColumn: 'delivery_id', idPrefix: 'dlv_', storage: 'fillfactor = 100' };
export const REQUEST_HEADER_PARTITIONS: TimePartitionedTable = { table: 'webhook_request_headers', keyColumn: 'delivery_id', idPrefix: 'dlv_' };

/** Spans kept partitioned ahead of now (attempts, headers, and events: body-retention.ts), so that in normal operation no row is written into a default partition. */
export const SPANS_AHEAD = 2;

/** Creates the attempt and header partitions for now .. now + SPANS_AHEAD spans that are missing; returns their names. */
export async function ensureAttemptPartitions(db: DataSource, now = Date.now()): Promise<string[]> {
  const created: string[] = [];
  for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS]) created.push(...(await ensurePartitions(db, t, now, now + SPANS_AHEAD * PARTITION_SPAN_MS)));
  return created;
}

/** A partition's row `p` belongs to a delivery not settled yet: kept past retention, as deleting by row always did. */
const UNSETTLED = `EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = p.delivery_id AND d.status NOT IN (${SETTLED}))`;

/**
 * Deletes the attempts of finished (SUCCEEDED or FAILED) deliveries created more than `retentionMs`
 * ago; the deliveries stay, with their status and attempt count. Delivery ids start with their
 * creation time (ULID), so "older than" is a range of the attempts' primary key, and the tables are
 * partitioned by it: first every partition (of attempts and of shared request headers) whose whole span
 * is past the retention is dropped, the rows of unsettled deliveries moved to the default partition
 * beforehand; then the default partition, which holds those and anything written outside the
 * partitions, is pruned row by row. A span partly past the retention is dropped once all of it is, so
 * attempts stay up to a span (a week) longer than the retention. Returns how many attempts it deleted row by row.
 */
export async function pruneOldAttempts(db: DataSource, retentionMs: number, now = Date.now(), shouldStop: () => boolean = () => false): Promise<number> {
  const cutoffMs = now - retentionMs;
  for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS]) {
    if (shouldStop()) return 0;
    const { dropped, rowsKept } = await dropPartitionsBefore(db, t, cutoffMs, { where: UNSETTLED });
    if (dropped.length) logger.info({ table: t.table, dropped, rowsKept, retentionMs }, 'dropped partitions past their retention');
  }
  // The smallest id a delivery created at the cutoff can have: the prefix and the time part of its ULID.
  const cutoffId = newWebhookId.delivery(cutoffMs).slice(0, 'dlv_'.length + 10);
  const attempts = defaultPartitionName(ATTEMPT_PARTITIONS);
  const headers = defaultPartitionName(REQUEST_HEADER_PARTITIONS);
  let deleted = 0;
  for (;;) {
    const [, count]: [unknown, number] = await db.query(
      `DELETE FROM ${attempts} a
        USING (SELECT a2.delivery_id, a2.number
                 FROM ${attempts} a2 JOIN webhook_deliveries d ON d.id = a2.delivery_id
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
      `DELETE FROM ${headers} h
        USING (SELECT h2.delivery_id
                 FROM ${headers} h2 JOIN webhook_deliveries d ON d.id = h2.delivery_id
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
  // The same span per endpoint: its health reads the last day, and lastAttemptAt as far back as is kept.
  const [, endpointHours]: [unknown, number] = await db.query('DELETE FROM webhook_endpoint_hourly WHERE hour < $1', [new Date(now - HOURLY_ROLLUP_RETENTION_MS)]);
  const [, minutes]: [unknown, number] = await db.query('DELETE FROM webhook_attempt_minutely WHERE minute < $1', [new Date(now - MINUTELY_ROLLUP_RETENTION_MS)]);
  return hours + endpointHours + minutes;
}
