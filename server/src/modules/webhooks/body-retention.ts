import type { DataSource } from 'typeorm';
import { encodeTime } from 'ulid';
import { logger } from '../../platform/logger.js';
import { defaultPartitionName, dropPartitionsBefore, ensurePartitions, PARTITION_SPAN_MS, type TimePartitionedTable } from '../../platform/time-partitions.js';
import { SPANS_AHEAD } from './attempt-retention.js';
import { sqlLiterals } from '../../platform/sql-literals.js';
import { OPEN_STATUSES } from './delivery/delivery-lifecycle.js';

/** The bodies: webhook_events, partitioned by its id (`evt_` + ULID, the event's time) since migration 1796000025000, a week a partition. */
export const EVENTS_TABLE: TimePartitionedTable = { table: 'webhook_events', keyColumn: 'id', idPrefix: 'evt_' };

/**
 * An event whose delivery is still open (PENDING or RETRYING: it will be sent, or is being sent) is never
 * removed, however old. Written as the due index's own predicate, so that index finds the (few) open
 * deliveries and one hash of them serves the whole partition. A recovery queues a FAILED delivery only
 * while its event exists (QUEUE_RECOVERY) and that check waits for the partition's detach to commit, so
 * a delivery recovered during the prune is either seen open here or finds its event gone and is skipped.
 */
const OPEN_DELIVERY = (event: string) => `EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ${event}.id AND d.status IN (${sqlLiterals(...OPEN_STATUSES)}))`;

/** Rows deleted per statement from the default partition: each delete holds its locks and WAL briefly. */
const PRUNE_BATCH = 5_000;

/** Creates the event partitions from now to SPANS_AHEAD spans ahead, as for the attempts (idempotent); returns the names created. */
export function ensureEventPartitions(db: DataSource, now = Date.now()): Promise<string[]> {
  return ensurePartitions(db, EVENTS_TABLE, now, now + SPANS_AHEAD * PARTITION_SPAN_MS);
}

/**
 * WEBHOOK_BODY_RETENTION: removes the bodies of finished deliveries created more than `retentionMs`
 * ago (null: never), a whole partition (a week) at a time once all of it is past the retention, after
 * moving the events of still-open deliveries into the default partition; there, past the retention, they
 * are deleted row by row once their deliveries have finished. The deliveries themselves stay, and the
 * API shows them with payload "" and payloadKept false. Also creates the partitions ahead.
 */
export async function pruneOldBodies(
  db: DataSource,
  retentionMs: number | null,
  now = Date.now(),
  shouldStop: () => boolean = () => false,
): Promise<{ droppedPartitions: string[]; bodiesKept: number; bodiesDeleted: number }> {
  await ensureEventPartitions(db, now);
  if (retentionMs === null) return { droppedPartitions: [], bodiesKept: 0, bodiesDeleted: 0 };
  const cutoffMs = now - retentionMs;
  const { dropped, rowsKept } = await dropPartitionsBefore(db, EVENTS_TABLE, cutoffMs, { where: OPEN_DELIVERY('p') });
  // The smallest id an event made at the cutoff can have.
  const cutoffId = `${EVENTS_TABLE.idPrefix}${encodeTime(cutoffMs, 10)}`;
  const defaultPartition = defaultPartitionName(EVENTS_TABLE);
  let deleted = 0;
  for (;;) {
    const count = await db.transaction(async (tx) => {
      // As the partition's detach does: a recovery that has seen the event finishes first (and its delivery
      // reads open below), one that has not waits and then finds the event gone. Short: the default is small.
      await tx.query(`SET LOCAL lock_timeout = '5s'`);
      await tx.query(`LOCK TABLE ${defaultPartition} IN ACCESS EXCLUSIVE MODE`);
      const [, n]: [unknown, number] = await tx.query(
        `DELETE FROM ${defaultPartition} e
          USING (SELECT p.id FROM ${defaultPartition} p WHERE p.id < $1 AND NOT ${OPEN_DELIVERY('p')} LIMIT ${PRUNE_BATCH}) old
          WHERE e.id = old.id`,
        [cutoffId],
      );
      return n;
    });
    deleted += count;
    if (count < PRUNE_BATCH || shouldStop()) break;
  }
  if (dropped.length || deleted) logger.info({ dropped, kept: rowsKept, deleted, retentionMs }, 'deleted webhook bodies past WEBHOOK_BODY_RETENTION');
  return { droppedPartitions: dropped, bodiesKept: rowsKept, bodiesDeleted: deleted };
}
