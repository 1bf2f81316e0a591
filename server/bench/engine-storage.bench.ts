import pg from 'pg';
import { findFreePort } from '../platform/embedded-postgres.js';
import { commitEvents, createApps, startBenchDatabase, startBenchPlaza, startReceiver, waitUntilNone } from './harness.js';
import { bytesPerDelivery, tableSizes, type LogQueryFigures } from './log-queries.bench.js';
import { fmt, verdict, type BenchSize } from './report-format.js';

export interface EngineStorageResult {
  deliveries: number;
  /** Rows in webhook_attempts once every delivery settled (each delivery's three attempts, recorded). */
  attemptsRecorded: number;
  /** Requests the receiver answered: an attempt sent twice (a claim run out under it) counts twice. */
  requestsReceived: number;
  /** Deliveries that ended SUCCEEDED. */
  succeeded: number;
  /** From the first event committed to the last delivery settled, by the wall clock of a shared machine. */
  settleSeconds: number;
  /** Every delivery table as the engine left it, and after a plain VACUUM (as autovacuum would leave it). */
  asWritten: LogQueryFigures['sizes'];
  afterVacuum: LogQueryFigures['sizes'];
}

const SIZES: Record<BenchSize, { deliveries: number; apps: number }> = { tiny: { deliveries: 200, apps: 10 }, full: { deliveries: 20_000, apps: 60 } };
/** Answered 500, 500, then 200: three attempts a delivery, as the seeded history of benchmark 4 has. */
const FAILED_ATTEMPTS = 2;
const ATTEMPTS = FAILED_ATTEMPTS + 1;
/** Events committed together, as a busy store commits its purchases. */
const EVENTS_PER_TRANSACTION = 20;
const TABLE_NAMES = ['webhook_events', 'webhook_deliveries', 'webhook_attempts', 'webhook_open_attempts', 'webhook_request_headers'];

/**
 * Benchmark 4, second part: the delivery tables as the engine writes them. Benchmark 4 seeds its history in key order
 * with every attempt settled, the smallest a history can be. The engine writes a delivery's row again at each change
 * of its status, keeps an attempt apart while it is in flight, and records retries among newer deliveries' first
 * attempts, so keys arrive out of order. Here every delivery goes through the real claim and result write against a
 * receiver that fails twice and then answers 200, retries 200 ms apart: a burst of retries, as an endpoint down for a
 * moment causes. Then every table is measured, and whether each attempt was sent once.
 */
export async function engineStorageBenchmark(size: BenchSize): Promise<EngineStorageResult> {
  const { deliveries, apps } = SIZES[size];
  const database = await startBenchDatabase();
  const port = await findFreePort();
  const plaza = await startBenchPlaza(database.databaseUrl, { WEBHOOK_RETRY_SCHEDULE: '200ms,200ms' });
  const client = new pg.Client({ connectionString: database.databaseUrl });
  try {
    await client.connect();
    const { appIds, secretsByAppId } = await createApps(plaza, apps, `http://127.0.0.1:${port}/bench/webhook`);
    const receiver = await startReceiver(secretsByAppId, { port, failFirst: FAILED_ATTEMPTS });
    try {
      const started = performance.now();
      await commitEvents(plaza, appIds, deliveries, { eventsPerTransaction: EVENTS_PER_TRANSACTION });
      await waitUntilNone(plaza, ['PENDING', 'RETRYING'], 1_200_000);
      const settleSeconds = (performance.now() - started) / 1000;
      const { requests, rejected } = await receiver.count();
      if (rejected > 0) throw new Error(`${rejected} webhook requests failed signature verification`);
      const [{ attempts, succeeded }] = (
        await client.query(
          `SELECT (SELECT count(*) FROM webhook_attempts)::int AS attempts, (SELECT count(*) FROM webhook_deliveries WHERE status = 'SUCCEEDED')::int AS succeeded`,
        )
      ).rows;
      const asWritten = await tableSizes(client);
      await client.query(`VACUUM ${TABLE_NAMES.join(', ')}`);
      return { deliveries, attemptsRecorded: attempts, requestsReceived: requests, succeeded, settleSeconds, asWritten, afterVacuum: await tableSizes(client) };
    } finally {
      await receiver.close();
    }
  } finally {
    await client.end().catch(() => undefined);
    await plaza.stop();
    await database.close();
  }
}

/** Benchmark 4's second part in BENCHMARKS.md; `seededBytesPerDelivery` is the first part's figure at its larger size. */
export function engineStorageReport(r: EngineStorageResult, seeded: { deliveries: number; bytesPerDelivery: number }): string {
  const perDelivery = (bytes: number) => fmt(bytes / r.deliveries);
  const rows = r.asWritten.map((written, i) => {
    const vacuumed = r.afterVacuum[i]!;
    return `| ${written.table} | ${perDelivery(written.heapBytes)} | ${perDelivery(written.indexBytes)} | ${perDelivery(vacuumed.heapBytes)} | ${perDelivery(vacuumed.indexBytes)} |`;
  });
  const afterVacuum = bytesPerDelivery({ deliveries: r.deliveries, sizes: r.afterVacuum });
  const asWritten = bytesPerDelivery({ deliveries: r.deliveries, sizes: r.asWritten });
  return `### 4b. As the engine writes them (${fmt(r.deliveries)} deliveries, each answered 500, 500, then 200; retries 200 ms apart)

Events committed ${EVENTS_PER_TRANSACTION} to a transaction; every delivery through the real claim and result write. Bytes
per delivery, every table and index (partitions summed), as the engine left them and after a plain VACUUM.

| Table | Heap | Indexes | Heap after VACUUM | Indexes after VACUUM |
|---|---|---|---|---|
${rows.join('\n')}

Bytes on disk per delivery: ${fmt(asWritten)} as written, **${fmt(afterVacuum)} after VACUUM**, ${(afterVacuum / seeded.bytesPerDelivery).toFixed(2)}x the
seeded history's ${fmt(seeded.bytesPerDelivery)} at ${fmt(seeded.deliveries)} (above): the seeded figure is the lower bound a history can reach.
Settled in ${r.settleSeconds.toFixed(1)} s (wall clock, a shared machine: for comparison within one session only).

| Target | Now |
|---|---|
| every delivery SUCCEEDED | ${verdict(r.succeeded === r.deliveries)} (${fmt(r.succeeded)} of ${fmt(r.deliveries)}) |
| each attempt sent once: ${ATTEMPTS} requests and ${ATTEMPTS} attempts recorded a delivery | ${verdict(r.requestsReceived === r.deliveries * ATTEMPTS && r.attemptsRecorded === r.deliveries * ATTEMPTS)} (${fmt(r.requestsReceived)} requests, ${fmt(r.attemptsRecorded)} attempts) |
`;
}
