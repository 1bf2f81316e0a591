import pg from 'pg';
import { Pool } from 'undici';
import { devUserId } from '../modules/identity/identity.service.js';
import { StatsWindow, WINDOW_HOURS } from '../modules/insights/insights.types.js';
import { DeliveryStats } from '../modules/webhooks/delivery-stats.queries.js';
import { INTERRUPTED } from '../modules/webhooks/index.js';
import type { StatsSource } from '../modules/insights/insights.service.js';
import { DeliveryRollups1796000017000 } from '../platform/migrations/1796000017000-DeliveryRollups.js';
import { createApps, median, percentile, startBenchDatabase, startBenchPlaza } from './harness.js';
import { crockford, randomUlidPart } from './log-queries.bench.js';
import { fmt, verdict, type BenchSize } from './report-format.js';

export interface ChartTiming {
  window: StatsWindow;
  source: StatsSource;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** PostgreSQL's own execution time of the statement (EXPLAIN ANALYZE, median of 5): what HTTP and a busy machine add is not in it. */
  sqlMs: number;
}

export interface ChartsResult {
  deliveries: number;
  attempts: number;
  /** The migration's backfill of the rollups from every attempt already recorded. */
  backfillMs: number;
  rollupRows: number;
  timings: ChartTiming[];
}

const SIZES: Record<BenchSize, { deliveries: number; rollupRequests: number; rawRequests: number; warmUp: number }> = {
  tiny: { deliveries: 5_000, rollupRequests: 20, rawRequests: 5, warmUp: 5 },
  full: { deliveries: 1_000_000, rollupRequests: 400, rawRequests: 20, warmUp: 20 },
};
const SEED_CHUNK = 200_000;
/** The history ends a minute ago and spans 7 days less an hour: every delivery is in LAST_7_DAYS, a seventh in LAST_24_HOURS. */
const HISTORY_MS = 7 * 24 * 3_600_000 - 3_600_000;

const STATS_QUERY = `query Stats($appId: ID, $window: StatsWindow) {
  webhookDeliveryStats(appId: $appId, window: $window) { window buckets { start succeeded failed } successRate latencyP50Ms latencyP95Ms webhookState }
}`;

/**
 * Benchmark 8: webhookDeliveryStats over HTTP for one app with `deliveries` deliveries in the last week,
 * as its developer's deliveries:read token asks it. "Before": the same API answered from the attempts
 * themselves (the raw SQL path); "after": from the hourly rollup.
 */
export async function chartsBenchmark(size: BenchSize): Promise<ChartsResult> {
  const { deliveries, rollupRequests, rawRequests, warmUp } = SIZES[size];
  const database = await startBenchDatabase();
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const seeder = new pg.Client({ connectionString: database.databaseUrl });
  const http = new Pool(plaza.url, { connections: 1 });
  try {
    await seeder.connect();
    const {
      appIds: [appId],
    } = await createApps(plaza, 1, 'https://hooks.bench.example/plaza');
    if (!appId) throw new Error('no app was created');
    const { token } = await plaza.services.identity.createApiToken(devUserId('bench@plaza.test'), { name: 'bench', scopes: ['deliveries:read'] });
    await seedHistory(seeder, appId, deliveries);
    const [{ attempts }] = (await seeder.query('SELECT count(*)::int AS attempts FROM webhook_attempts')).rows;

    // The rollups as a deployment on this database would make them: the migration's backfill.
    const started = performance.now();
    await seeder.query('TRUNCATE webhook_attempt_hourly, webhook_attempt_minutely');
    const runner = plaza.services.db.createQueryRunner();
    try {
      const migration = new DeliveryRollups1796000017000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const backfillMs = performance.now() - started;
    await seeder.query('VACUUM ANALYZE webhook_attempt_hourly');
    const [{ rollupRows }] = (await seeder.query('SELECT count(*)::int AS "rollupRows" FROM webhook_attempt_hourly')).rows;

    const post = async (window: StatsWindow) => {
      const response = await http.request({
        path: '/graphql',
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: STATS_QUERY, variables: { appId, window } }),
      });
      const body = (await response.body.json()) as { data?: { webhookDeliveryStats: { buckets: { succeeded: number; failed: number }[] } }; errors?: unknown[] };
      if (response.statusCode !== 200 || body.errors || !body.data) throw new Error(`webhookDeliveryStats answered ${response.statusCode}: ${JSON.stringify(body.errors)}`);
      return body.data.webhookDeliveryStats;
    };

    // "Before" goes through the same API with the service answering from the attempts (the reference path).
    const insights = plaza.services.insights;
    const rollupPath = insights.deliveryStats.bind(insights);
    const useSource = (source: StatsSource) => {
      insights.deliveryStats = (ids, window, state) => rollupPath(ids, window, state, source);
    };
    const timings: ChartTiming[] = [];
    const answers = new Map<string, string>();
    for (const source of ['raw', 'rollup'] as const) {
      useSource(source);
      for (const window of [StatsWindow.LAST_24_HOURS, StatsWindow.LAST_7_DAYS]) {
        const requests = source === 'raw' ? rawRequests : rollupRequests;
        for (let i = 0; i < (source === 'raw' ? 2 : warmUp); i++) await post(window);
        const latencies: number[] = [];
        for (let i = 0; i < requests; i++) {
          const t = performance.now();
          await post(window);
          latencies.push(performance.now() - t);
        }
        const round = (ms: number) => Math.round(ms * 100) / 100;
        const sqlMs = round(await executionMs(seeder, source, appId, window));
        timings.push({ window, source, requests, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), sqlMs });
        // Both paths must give the same counts, or the figure compares different answers.
        const { buckets } = await post(window);
        const counts = JSON.stringify(buckets);
        if (answers.has(window) && answers.get(window) !== counts) throw new Error(`the rollup and the attempts disagree over ${window}`);
        answers.set(window, counts);
      }
    }
    useSource('rollup');
    return { deliveries, attempts, backfillMs, rollupRows, timings };
  } finally {
    await http.close();
    // The figures are measured already; a seeding connection that fails to end must not stop the server below.
    await seeder.end().catch(() => undefined);
    await plaza.stop();
    await database.close();
  }
}

/** The median of five EXPLAIN ANALYZE runs of the statement behind one answer: the database's share alone. */
async function executionMs(client: pg.Client, source: StatsSource, appId: string, window: StatsWindow): Promise<number> {
  const [text, values] = source === 'raw' ? [DeliveryStats.raw, [[appId], WINDOW_HOURS[window], INTERRUPTED]] : [DeliveryStats.rollup, [[appId], WINDOW_HOURS[window]]];
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
    runs.push((rows[0]['QUERY PLAN'][0] as { 'Execution Time': number })['Execution Time']);
  }
  return median(runs);
}

/**
 * `count` settled deliveries of one app spread evenly over the last week, with set-based SQL: one
 * attempt each (2xx, 20-420 ms), except one in sixteen that failed twice (HTTP 500) before its third
 * attempt (200 or, for one in three of those, 500 again).
 */
async function seedHistory(client: pg.Client, appId: string, count: number): Promise<void> {
  const historyStart = Date.now() - 60_000 - HISTORY_MS;
  const spacing = HISTORY_MS / count;
  for (let start = 0; start < count; start += SEED_CHUNK) {
    const end = Math.min(count, start + SEED_CHUNK);
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMP TABLE seed ON COMMIT DROP AS
       SELECT s.*, 'evt_' || ${crockford('s.ms', 10)} || ${randomUlidPart} AS event_id, 'dlv_' || ${crockford('s.ms', 10)} || ${randomUlidPart} AS delivery_id,
              to_timestamp(s.ms / 1000.0) AS at, CASE WHEN i % 16 = 0 THEN 3 ELSE 1 END AS tries,
              CASE WHEN i % 48 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END AS status
         FROM (SELECT i, ($3::float8 + i * $4::float8)::bigint AS ms, 'APP-' || i || '-BENCH0' AS purchase_id FROM generate_series($1::bigint, $2::bigint - 1) i) s`,
      [start, end, historyStart, spacing],
    );
    await client.query(`INSERT INTO webhook_events (id, payload) SELECT event_id, '{"event":"app.purchased"}' FROM seed`);
    await client.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT delivery_id, event_id, $1, 'app.purchased', purchase_id, status, tries, tries, NULL, at, at + interval '1 minute' FROM seed`,
      [appId],
    );
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, url, finished)
       SELECT delivery_id, n, 'SCHEDULED', at + (n - 1) * interval '5 seconds', 20 + (i * 7919 * n) % 400, code, CASE WHEN code <> 200 THEN 'HTTP 500' END,
              'https://hooks.bench.example/plaza', true
         FROM seed, generate_series(1, tries) n, LATERAL (SELECT CASE WHEN n = tries AND status = 'SUCCEEDED' THEN 200 ELSE 500 END AS code) c`,
    );
    await client.query('COMMIT');
  }
  await client.query('VACUUM ANALYZE webhook_events, webhook_deliveries, webhook_attempts');
}

export function chartsReport(r: ChartsResult): string {
  const rows = r.timings.map(
    (t) =>
      `| ${t.window} | ${t.source === 'raw' ? 'before: from the attempts (raw SQL)' : 'after: from the hourly rollup'} | ${fmt(t.requests)} | ${t.p50Ms} ms | **${t.p99Ms} ms** | ${t.sqlMs} ms |`,
  );
  const worstAfter = Math.max(...r.timings.filter((t) => t.source === 'rollup').map((t) => t.p99Ms));
  return `## 8. Charts (\`webhookDeliveryStats\` over HTTP, one app with ${fmt(r.deliveries)} deliveries in the last 7 days)

The app's developer, with a \`deliveries:read\` API token, asks for the app's delivery chart (hourly
buckets by outcome, success rate, p50/p95 latency), sequential requests after a warm-up. The app has
${fmt(r.deliveries)} deliveries spread over the last week with ${fmt(r.attempts)} attempts (one in sixteen retried
twice). "Before" is the same API answered from the attempts themselves; "after" from
\`webhook_attempt_hourly\` (${fmt(r.rollupRows)} rows), which the migration filled from these attempts in
${fmt(r.backfillMs)} ms. Both answers are checked to be the same. "SQL" is PostgreSQL's own execution time
of the statement (EXPLAIN ANALYZE, median of 5), without HTTP, GraphQL and the token check.

| Window | Answered | Requests | p50 | p99 | SQL |
|---|---|---|---|---|---|
${rows.join('\n')}

| Target | Now |
|---|---|
| p99 well under 50 ms at ${fmt(r.deliveries)} deliveries (after) | ${verdict(worstAfter < 50)} (${worstAfter} ms) |
`;
}
