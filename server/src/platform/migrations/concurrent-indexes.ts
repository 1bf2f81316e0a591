import type { DataSource, QueryRunner } from 'typeorm';
import { listPartitions, type TimePartitionedTable } from '../time-partitions.js';
import { withShortLocks } from './short-locks.js';

/**
 * Indexes on tables that grow with the history, built with CREATE INDEX CONCURRENTLY after the migrations: a
 * plain CREATE INDEX would hold every new delivery and result write for as long as the build takes on the whole
 * history. Not built by a migration: migrations run under the schema-setup lock, and a concurrent build waits for
 * every transaction that holds a snapshot, the other starting processes' waits for that lock among them, which
 * wait for it in turn (four processes starting together hung so). Built by one process at a time (a lock taken
 * without waiting); the others wait, with short statements only, until it is valid. An index left invalid by a
 * build that failed is dropped and built again. Each is declared on its entity too, so the schema check sees it.
 */
export const CONCURRENT_INDEXES: readonly { name: string; definition: string }[] = [
  // The engine's per-endpoint queue (delivery-queries.ts): slots are kept per endpoint.
  { name: 'idx_webhook_deliveries_endpoint_queue', definition: `ON "webhook_deliveries" ("endpoint_id", "next_attempt_at") WHERE next_attempt_at IS NOT NULL` },
  // An endpoint's held deliveries (WebhookEndpoint.health): only those recorded while it was paused or disabled and not yet recovered.
  { name: 'idx_webhook_deliveries_endpoint_held', definition: `ON "webhook_deliveries" ("endpoint_id") WHERE held_reason IS NOT NULL` },
  // A purchase's deliveries in the Webhook Logs (a few per purchase, sorted after they are found): a hash index keeps a
  // 4-byte hash per delivery where the btree on (purchase_id, id) it replaces kept both texts, 78 bytes a delivery.
  { name: 'idx_webhook_deliveries_purchase_hash', definition: `ON "webhook_deliveries" USING hash ("purchase_id")` },
];

/**
 * Indexes on a partitioned table, which CREATE INDEX CONCURRENTLY cannot build on the parent: the parent's index
 * is made ON ONLY the parent (catalog only, invalid), each partition's is built concurrently and attached, and
 * the parent's becomes valid once every partition has one. A partition made later (time-partitions.ts) gets it
 * as it is attached. `keys` is what follows the table in CREATE INDEX.
 */
export const PARTITIONED_CONCURRENT_INDEXES: readonly { name: string; partitioned: TimePartitionedTable; keys: string }[] = [
  // The recovery pass's attempts left open in webhook_attempts by the previous release, which started an attempt
  // there and wrote its outcome over it (delivery/manual-and-recovery-queries.ts CLOSE_ABANDONED_ATTEMPTS). Without
  // it the pass read every attempt partition whole every 15 s (34 ms and 6,264 pages at 100,000 deliveries, and
  // growing with the history kept); with it, the few open rows. This release never leaves an attempt open there,
  // so the index holds nearly nothing.
  {
    name: 'idx_webhook_attempts_open',
    partitioned: { table: 'webhook_attempts', keyColumn: 'delivery_id', idPrefix: 'dlv_' },
    keys: '("delivery_id") WHERE NOT finished',
  },
];

/**
 * Taken without waiting by the one process building (or dropping: contract-steps.ts) an index concurrently;
 * an arbitrary constant beside the schema-setup lock's.
 */
export const INDEX_BUILD_LOCK = 7_146_993_013;
const POLL_MS = 200;

/**
 * Runs `work` on `session` unless `isDone` says it is done already, in one process at a time: INDEX_BUILD_LOCK is
 * taken without waiting, and the others ask `isDone` again every POLL_MS with short statements only (a lock
 * waited for would hold a snapshot, which a concurrent build or drop waits for in turn). `isDone` is asked again
 * under the lock, since another process may have done it meanwhile. Returns whether `work` ran here.
 */
export async function byOneProcessAtATime(session: QueryRunner, isDone: () => Promise<boolean>, work: () => Promise<void>): Promise<boolean> {
  for (;;) {
    if (await isDone()) return false;
    const [lock] = (await session.query('SELECT pg_try_advisory_lock($1) AS got', [INDEX_BUILD_LOCK])) as { got: boolean }[];
    if (!lock?.got) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    try {
      if (await isDone()) return false;
      await work();
      return true;
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [INDEX_BUILD_LOCK]);
    }
  }
}

/** Whether index `name` is there and valid: null when it is not there. */
async function validityOf(session: QueryRunner, name: string): Promise<boolean | null> {
  return ((await session.query(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)) AS valid`, [name])) as { valid: boolean | null }[])[0]!.valid;
}

const UNDEFINED_TABLE = '42P01';

/**
 * Builds `index` on every partition of its table that has none attached yet, and attaches it, until the parent's
 * index is valid. A partition dropped meanwhile (retention) is passed over.
 */
async function buildOnEveryPartition(session: QueryRunner, index: (typeof PARTITIONED_CONCURRENT_INDEXES)[number]): Promise<void> {
  const { table } = index.partitioned;
  if ((await validityOf(session, index.name)) === null) {
    // The parent's index: no rows read, but its lock waits for the table's writers, so it waits briefly and tries again.
    await session.startTransaction();
    try {
      await withShortLocks(session, [`CREATE INDEX IF NOT EXISTS "${index.name}" ON ONLY "${table}" ${index.keys}`]);
      await session.commitTransaction();
    } catch (error) {
      await session.rollbackTransaction();
      throw error;
    }
  }
  // Twice at most: a partition made while the first round ran is attached with its index by the making.
  for (let round = 0; round < 2 && !(await validityOf(session, index.name)); round++) {
    for (const partition of await listPartitions(session, index.partitioned)) {
      const [{ attached }] = (await session.query(
        `SELECT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
                          WHERE i.inhparent = to_regclass($1) AND x.indrelid = to_regclass($2)) AS attached`,
        [index.name, partition.name],
      )) as [{ attached: boolean }];
      if (attached) continue;
      // Named after the partition: idx_webhook_attempts_open_p20261123, ..._default.
      const own = `${index.name}${partition.name.slice(table.length)}`;
      try {
        if ((await validityOf(session, own)) === false) await session.query(`DROP INDEX CONCURRENTLY IF EXISTS "${own}"`);
        await session.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${own}" ON "${partition.name}" ${index.keys}`);
        await session.query(`ALTER INDEX "${index.name}" ATTACH PARTITION "${own}"`);
      } catch (error) {
        if ((error as { code?: string }).code !== UNDEFINED_TABLE) throw error;
      }
    }
  }
  if (!(await validityOf(session, index.name))) throw new Error(`${index.name}: not valid after building it on every partition of ${table}`);
}

/** Builds every index of CONCURRENT_INDEXES and PARTITIONED_CONCURRENT_INDEXES that is not there and valid yet; returns once each is. */
export async function buildConcurrentIndexes(dataSource: DataSource): Promise<string[]> {
  const built: string[] = [];
  const session = dataSource.createQueryRunner();
  try {
    for (const index of CONCURRENT_INDEXES) {
      const validity = () => validityOf(session, index.name);
      const builtHere = await byOneProcessAtATime(
        session,
        async () => (await validity()) === true,
        async () => {
          // Left invalid by a build that failed: dropped and built again.
          if ((await validity()) === false) await session.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.name}"`);
          await session.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${index.name}" ${index.definition}`);
        },
      );
      if (builtHere) built.push(index.name);
    }
    for (const index of PARTITIONED_CONCURRENT_INDEXES) {
      const builtHere = await byOneProcessAtATime(
        session,
        async () => (await validityOf(session, index.name)) === true,
        () => buildOnEveryPartition(session, index),
      );
      if (builtHere) built.push(index.name);
    }
  } finally {
    await session.release();
  }
  return built;
}
