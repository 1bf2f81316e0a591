import pg from 'pg';
import { findFreePort } from '../platform/embedded-postgres.js';
import { commitEvents, createApps, startBenchDatabase, startBenchPlaza, startReceiver, waitUntilNone } from './harness.js';
import { bytesPerDelivery, DELIVERY_TABLES, tableSizes, type LogQueryFigures } from './log-queries.bench.js';
import { fmt, verdict, type BenchSize } from './report-format.js';

export interface EngineStorageResult {
  /** Deliveries in each of the two bursts. */
  deliveries: number;
  /** Rows in webhook_attempts once every delivery of both bursts settled (three attempts each, recorded). */
  attemptsRecorded: number;
  /** Requests the receiver answered: an attempt sent twice (a claim run out under it) counts twice. */
  requestsReceived: number;
  /** Deliveries that ended SUCCEEDED. */
  succeeded: number;
  /** Each burst's time from its first event committed to its last delivery settled, by the wall clock of a shared machine. */
  settleSeconds: [number, number];
  /** Every delivery table after each burst settled and two plain VACUUMs (as autovacuum would leave it, coming round again). */
  afterFirst: LogQueryFigures['sizes'];
  afterSecond: LogQueryFigures['sizes'];
  /** Each index of webhook_deliveries after each burst (bytes), where most of what the engine adds goes. */
  deliveryIndexes: { name: string; afterFirst: number; afterSecond: number }[];
}

/** The bytes of each index of webhook_deliveries, by name. */
async function deliveryIndexSizes(client: pg.Client): Promise<Map<string, number>> {
  const { rows } = await client.query<{ name: string; bytes: number }>(
    `SELECT c.relname AS name, pg_relation_size(i.indexrelid)::float AS bytes FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'webhook_deliveries'::regclass`,
  );
  return new Map(rows.map((row) => [row.name, row.bytes]));
}

const SIZES: Record<BenchSize, { deliveries: number; apps: number }> = { tiny: { deliveries: 200, apps: 10 }, full: { deliveries: 20_000, apps: 60 } };
/** Answered 500, 500, then 200: three attempts a delivery, as the seeded history of benchmark 4 has. */
const FAILED_ATTEMPTS = 2;
const ATTEMPTS = FAILED_ATTEMPTS + 1;
/** Events committed together, as a busy store commits its purchases. */
const EVENTS_PER_TRANSACTION = 20;

/**
 * Benchmark 4, second part: the delivery tables as the engine writes them. Benchmark 4 seeds its history in key order
 * with every attempt settled, the smallest a history can be. The engine writes a delivery's row again at each change
 * of its status, keeps an attempt apart while it is in flight, and records retries among newer deliveries' first
 * attempts, so keys arrive out of order. Here every delivery goes through the real claim and result write against a
 * receiver that fails twice and then answers 200, retries 200 ms apart: a burst of retries, as an endpoint down for a
 * moment causes. Two bursts, one after the other: the first leaves the queue's indexes (the due deliveries, the
 * attempts in flight) as large as its backlog was, pages the second reuses, so what the second adds is what a
 * delivery costs once a history is running. Then whether each attempt was sent once.
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
    const burst = async () => {
      const started = performance.now();
      await commitEvents(plaza, appIds, deliveries, { eventsPerTransaction: EVENTS_PER_TRANSACTION });
      await waitUntilNone(plaza, ['PENDING', 'RETRYING'], 1_200_000);
      const seconds = (performance.now() - started) / 1000;
      // Twice, as autovacuum comes round again in a running history: an index page emptied by one VACUUM can be reused
      // only once no transaction may still read it, which the next VACUUM finds and hands to the free space map.
      await client.query(`VACUUM ${DELIVERY_TABLES.join(', ')}`);
      await client.query(`VACUUM ${DELIVERY_TABLES.join(', ')}`);
      return { seconds, sizes: await tableSizes(client), indexes: await deliveryIndexSizes(client) };
    };
    try {
      const first = await burst();
      const second = await burst();
      const { requests, rejected } = await receiver.count();
      if (rejected > 0) throw new Error(`${rejected} webhook requests failed signature verification`);
      const [{ attempts, succeeded }] = (
        await client.query(
          `SELECT (SELECT count(*) FROM webhook_attempts)::int AS attempts, (SELECT count(*) FROM webhook_deliveries WHERE status = 'SUCCEEDED')::int AS succeeded`,
        )
      ).rows;
      return {
        deliveries,
        attemptsRecorded: attempts,
        requestsReceived: requests,
        succeeded,
        settleSeconds: [first.seconds, second.seconds],
        afterFirst: first.sizes,
        afterSecond: second.sizes,
        deliveryIndexes: [...first.indexes]
          .map(([name, bytes]) => ({ name, afterFirst: bytes, afterSecond: second.indexes.get(name) ?? 0 }))
          .sort((a, b) => b.afterSecond - a.afterSecond),
      };
    } finally {
      await receiver.close();
    }
  } finally {
    await client.end().catch(() => undefined);
    await plaza.stop();
    await database.close();
  }
}

/** Benchmark 4's second part in BENCHMARKS.md; `seeded` is the first part's figure at its larger size. */
export function engineStorageReport(r: EngineStorageResult, seeded: { deliveries: number; bytesPerDelivery: number }): string {
  const perDelivery = (bytes: number) => fmt(bytes / r.deliveries);
  const rows = r.afterFirst.map((first, i) => {
    const second = r.afterSecond[i]!;
    return `| ${first.table} | ${perDelivery(first.heapBytes)} + ${perDelivery(first.indexBytes)} | ${perDelivery(second.heapBytes - first.heapBytes)} + ${perDelivery(second.indexBytes - first.indexBytes)} |`;
  });
  const firstBytes = bytesPerDelivery({ deliveries: r.deliveries, sizes: r.afterFirst });
  const added = bytesPerDelivery({ deliveries: r.deliveries, sizes: r.afterSecond }) - firstBytes;
  const both = 2 * r.deliveries;
  return `### 4b. As the engine writes them (two bursts of ${fmt(r.deliveries)} deliveries, each answered 500, 500, then 200; retries 200 ms apart)

Events committed ${EVENTS_PER_TRANSACTION} to a transaction; every delivery through the real claim and result write. Bytes per
delivery, heap + indexes of every table (partitions summed), after each burst settled and two plain VACUUMs: the first
burst's, and what the second added. The first leaves the queue's indexes as large as its backlog, and the second reuses
those pages, so the second is what a delivery costs once a history is running.

| Table | First burst | Added by the second |
|---|---|---|
${rows.join('\n')}

Where the deliveries' index bytes go, per delivery: ${r.deliveryIndexes
    .map((index) => `${index.name.startsWith('PK_') ? 'primary key' : index.name} ${perDelivery(index.afterFirst)} then ${perDelivery(index.afterSecond - index.afterFirst)}`)
    .join('; ')}.

Bytes on disk per delivery: ${fmt(firstBytes)} after the first burst, **${fmt(added)} added per delivery by the second**,
${(added / seeded.bytesPerDelivery).toFixed(2)}x the seeded history's ${fmt(seeded.bytesPerDelivery)} at ${fmt(seeded.deliveries)} (above).
Settled in ${r.settleSeconds.map((seconds) => `${seconds.toFixed(1)} s`).join(' and ')} (wall clock, a shared machine: for comparison within one session only).

| Target | Now |
|---|---|
| every delivery SUCCEEDED | ${verdict(r.succeeded === both)} (${fmt(r.succeeded)} of ${fmt(both)}) |
| each attempt sent once: ${ATTEMPTS} requests and ${ATTEMPTS} attempts recorded a delivery | ${verdict(r.requestsReceived === both * ATTEMPTS && r.attemptsRecorded === both * ATTEMPTS)} (${fmt(r.requestsReceived)} requests, ${fmt(r.attemptsRecorded)} attempts) |
`;
}
