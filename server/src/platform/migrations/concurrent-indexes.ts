import type { DataSource, QueryRunner } from 'typeorm';

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

/** Builds every index of CONCURRENT_INDEXES that is not there and valid yet; returns once each is. */
export async function buildConcurrentIndexes(dataSource: DataSource): Promise<string[]> {
  const built: string[] = [];
  const session = dataSource.createQueryRunner();
  try {
    for (const index of CONCURRENT_INDEXES) {
      const validity = async () =>
        ((await session.query(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)) AS valid`, [index.name])) as { valid: boolean | null }[])[0]!.valid;
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
  } finally {
    await session.release();
  }
  return built;
}
