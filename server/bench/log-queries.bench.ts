import pg from 'pg';
import { Pool } from 'undici';
import { appIdsOwnedBy } from '../modules/apps/index.js';
import { devUserId } from '../modules/identity/identity.service.js';
import type { WebhookDeliveryFilter } from '../modules/webhooks/dto/webhook-delivery-filter.input.js';
import { DeliveryStatus } from '../modules/webhooks/webhook.types.js';
import { ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS } from '../modules/webhooks/attempt-retention.js';
import { EVENTS_TABLE } from '../modules/webhooks/body-retention.js';
import { ensurePartitions } from '../platform/time-partitions.js';
import { createApps, percentile, startBenchDatabase, startBenchPlaza } from './harness.js';
import { fmt, verdict, type BenchSize } from './report-format.js';

export interface Timing {
  p50Ms: number;
  p99Ms: number;
  meanRows: number;
}

export interface LogQueryFigures {
  /** Deliveries in the table when measured (each with three attempts). */
  deliveries: number;
  /** Over HTTP, as a client sees it: one app's whole log (the page the portal opens on), by app and status, by purchase. */
  byApp: Timing;
  byAppAndStatus: Timing;
  byPurchase: Timing;
  /** The same calls made to `DeliveryLogService.list` in-process: the SQL alone, without HTTP, token check or GraphQL. */
  serviceByApp: Timing;
  serviceByAppAndStatus: Timing;
  serviceByPurchase: Timing;
  /** Bytes per table: heap (`pg_relation_size`) and all its indexes (`pg_indexes_size`), summed over its partitions when it has them. */
  sizes: { table: string; heapBytes: number; indexBytes: number }[];
}

export interface LogQueriesResult {
  apps: number;
  requestsPerQuery: number;
  /** Average bytes of a seeded event body (the real seven-field body of interface.md). */
  payloadBytes: number;
  small: LogQueryFigures;
  large: LogQueryFigures;
}

const SIZES: Record<BenchSize, { small: number; large: number; apps: number; requests: number; warmUp: number }> = {
  tiny: { small: 2_000, large: 20_000, apps: 10, requests: 60, warmUp: 20 },
  full: { small: 100_000, large: 1_000_000, apps: 60, requests: 400, warmUp: 100 },
};
const PAGE = 50;
/** History is settled: most deliveries succeeded, a few failed for good or are still retrying. */
const STATUSES_QUERIED = [DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED, DeliveryStatus.RETRYING];
/** One seeded delivery every 5 s of history, ending now: 1,000,000 are about 58 days. */
const SPACING_MS = 5_000;
const SEED_CHUNK = 100_000;
// webhook_open_attempts holds only the attempts in flight (none in a seeded history): listed so that its size is counted all the same.
export const DELIVERY_TABLES = ['webhook_events', 'webhook_deliveries', 'webhook_attempts', 'webhook_open_attempts', 'webhook_request_headers'];

/** The Webhook Logs page's own list query (web/src/features/webhook-logs/webhook-deliveries.ts). */
const LIST_QUERY = `query WebhookDeliveries($filter: WebhookDeliveryFilter, $first: Int) {
  webhookDeliveries(filter: $filter, first: $first) {
    edges { cursor node { id appId event eventName purchaseId status attemptCount nextAttemptAt createdAt updatedAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/**
 * Benchmark 4: the Webhook Logs list over HTTP, as the apps' developer with a `deliveries:read` API
 * token, filtered by app, by app + status and by purchase, with `small` and then `large` deliveries stored.
 */
export async function logQueriesBenchmark(size: BenchSize): Promise<LogQueriesResult> {
  const { small, large, apps, requests, warmUp } = SIZES[size];
  const database = await startBenchDatabase();
  // No job worker: the seeded history is settled, and the figure is the API's, not the engine's.
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const seeder = new pg.Client({ connectionString: database.databaseUrl });
  const http = new Pool(plaza.url, { connections: 1 });
  try {
    await seeder.connect();
    const { appIds } = await createApps(plaza, apps, 'https://hooks.bench.example/plaza');
    const { token } = await plaza.services.identity.createApiToken(devUserId('bench@plaza.test'), { name: 'bench', scopes: ['deliveries:read'] });
    const post = graphqlPoster(http, token);
    const principal = await plaza.services.identity.authenticate(token);
    const historyStart = Date.now() - large * SPACING_MS;
    // Attempt, header and event partitions over the whole history, as the hourly job leaves them (in the default partition the rows would not be as stored).
    for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS, EVENTS_TABLE]) await ensurePartitions(plaza.services.db, t, historyStart, Date.now());

    const measure = async (deliveries: number): Promise<LogQueryFigures> => {
      const purchaseIds = (await seeder.query<{ purchase_id: string }>('SELECT purchase_id FROM webhook_deliveries ORDER BY random() LIMIT $1', [requests])).rows.map(
        (r) => r.purchase_id,
      );
      const app = (i: number) => ({ appId: appIds[i % appIds.length] });
      const appAndStatus = (i: number) => ({ appId: appIds[i % appIds.length], status: STATUSES_QUERIED[Math.floor(i / appIds.length) % STATUSES_QUERIED.length] });
      const purchase = (i: number) => ({ purchaseId: purchaseIds[i % purchaseIds.length] });
      // The apps read with each page, as a request that asks for them does.
      const list = async (filter: WebhookDeliveryFilter) =>
        (await plaza.services.deliveryLog.list(await appIdsOwnedBy(plaza.services.db.manager, principal.userId), filter, { first: PAGE })).edges.length;
      return {
        deliveries,
        byApp: await timeCalls(requests, warmUp, (i) => post(app(i))),
        byAppAndStatus: await timeCalls(requests, warmUp, (i) => post(appAndStatus(i))),
        byPurchase: await timeCalls(requests, warmUp, (i) => post(purchase(i))),
        serviceByApp: await timeCalls(requests, warmUp, (i) => list(app(i))),
        serviceByAppAndStatus: await timeCalls(requests, warmUp, (i) => list(appAndStatus(i))),
        serviceByPurchase: await timeCalls(requests, warmUp, (i) => list(purchase(i))),
        sizes: await tableSizes(seeder),
      };
    };

    await seedDeliveries(seeder, appIds, 0, small, historyStart);
    const smallFigures = await measure(small);
    await seedDeliveries(seeder, appIds, small, large, historyStart);
    const largeFigures = await measure(large);
    const [{ bytes }] = (await seeder.query('SELECT avg(octet_length(payload))::float AS bytes FROM webhook_events')).rows;
    return { apps, requestsPerQuery: requests, payloadBytes: Math.round(bytes), small: smallFigures, large: largeFigures };
  } finally {
    await http.close();
    // The figures are measured already; a seeding connection that fails to end must not stop the server below.
    await seeder.end().catch(() => undefined);
    await plaza.stop();
    await database.close();
  }
}

type Post = (filter: WebhookDeliveryFilter) => Promise<number>;

/** POSTs the list query; returns how many deliveries came back, and fails on any GraphQL error. */
function graphqlPoster(http: Pool, token: string): Post {
  return async (filter) => {
    const response = await http.request({
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: LIST_QUERY, variables: { filter, first: PAGE } }),
    });
    const body = (await response.body.json()) as { data?: { webhookDeliveries: { edges: unknown[] } }; errors?: unknown[] };
    if (response.statusCode !== 200 || body.errors || !body.data) throw new Error(`webhookDeliveries answered ${response.statusCode}: ${JSON.stringify(body.errors)}`);
    return body.data.webhookDeliveries.edges.length;
  };
}

/** Sequential calls after a warm-up (on other filters), each with the filter for its index; returns latency and rows. */
async function timeCalls(requests: number, warmUp: number, call: (i: number) => Promise<number>): Promise<Timing> {
  for (let i = 0; i < warmUp; i++) await call(requests + i);
  const latencies: number[] = [];
  let rows = 0;
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    rows += await call(i);
    latencies.push(performance.now() - started);
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), meanRows: round(rows / requests) };
}

/** Heap and indexes of each delivery table (DELIVERY_TABLES), as they are on disk now. */
export async function tableSizes(client: pg.Client): Promise<LogQueryFigures['sizes']> {
  // A partitioned parent has no storage of its own: its leaves' (pg_partition_tree lists nothing for a plain table).
  const { rows } = await client.query(
    `SELECT t AS table, sum(pg_relation_size(COALESCE(p.relid, t::regclass)))::float AS heap, sum(pg_indexes_size(COALESCE(p.relid, t::regclass)))::float AS indexes
       FROM unnest($1::text[]) WITH ORDINALITY AS u(t, k) LEFT JOIN LATERAL pg_partition_tree(t::regclass) p ON true
      WHERE p.relid IS NULL OR p.isleaf
      GROUP BY t, k ORDER BY k`,
    [DELIVERY_TABLES],
  );
  return rows.map((r) => ({ table: r.table as string, heapBytes: r.heap as number, indexBytes: r.indexes as number }));
}

/** SQL for `value` (a bigint expression) as `length` Crockford base32 characters, most significant first, as ulid's encodeTime. */
export const crockford = (value: string, length: number) =>
  Array.from({ length }, (_, k) => `substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (((${value}) >> ${5 * (length - 1 - k)}) & 31)::int + 1, 1)`).join(' || ');
/** 80 random bits as 16 Crockford characters: the random half of a ULID. */
export const randomUlidPart = `${crockford('(random() * 1099511627775)::bigint', 8)} || ${crockford('(random() * 1099511627775)::bigint', 8)}`;

/**
 * Deliveries number `from` to `to - 1` of a history starting at `historyStart` (ms), written with
 * set-based SQL in the real schema: ids shaped like `newWebhookId` (event time in the ULID), the
 * exact body `webhookPayload` builds, two events (purchased, installed) per purchase, and three
 * attempts per delivery with the headers the engine records (shared ones once per delivery). Ends with VACUUM ANALYZE, as autovacuum would.
 */
export async function seedDeliveries(client: pg.Client, appIds: string[], from: number, to: number, historyStart: number): Promise<void> {
  for (let start = from; start < to; start += SEED_CHUNK) {
    const end = Math.min(to, start + SEED_CHUNK);
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMP TABLE seed ON COMMIT DROP AS
       SELECT s.*,
              'evt_' || ${crockford('s.ms', 10)} || ${randomUlidPart} AS event_id,
              'dlv_' || ${crockford('s.ms', 10)} || ${randomUlidPart} AS delivery_id,
              to_timestamp(s.ms / 1000.0) AS at
         FROM (SELECT i,
                      $3::bigint + i * ${SPACING_MS}::bigint AS ms,
                      ($1::text[])[1 + (i / 2) % cardinality($1::text[])] AS app_id,
                      'dev_' || substr(md5('buyer' || ((i / 2) * 7919) % 20000), 1, 24) AS user_id,
                      'APP-' || ($3::bigint + (i / 2) * 2 * ${SPACING_MS}::bigint) || '-' || ${crockford('(i / 2) * 2654435761 % 1073741824', 6)} AS purchase_id,
                      CASE WHEN i % 2 = 0 THEN 'app.purchased' ELSE 'app.installed' END AS type,
                      CASE WHEN i % 2 = 0 THEN 20000 + ((i / 2) % 25) * 10000 ELSE 0 END AS amount_vnd,
                      CASE WHEN (i * 2654435761) % 100 < 94 THEN 'SUCCEEDED' WHEN (i * 2654435761) % 100 < 97 THEN 'FAILED' ELSE 'RETRYING' END AS status
                 FROM generate_series($2::bigint, $4::bigint - 1) i) s`,
      [appIds, start, historyStart, end],
    );
    await client.query(
      // Byte for byte as JSON.stringify writes it (json_build_object would add a space around every ':' and after every ',': 21 bytes more).
      // The values hold no character JSON escapes.
      `INSERT INTO webhook_events (id, payload)
       SELECT event_id,
              '{"event":"' || type || '","app_id":"' || app_id || '","user_id":"' || user_id || '","purchase_id":"' || purchase_id
              || '","amount_vnd":' || amount_vnd || ',"developer_share_vnd":' || amount_vnd * 8 / 10
              || ',"timestamp":"' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'
         FROM seed`,
    );
    await client.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT delivery_id, event_id, app_id, type, purchase_id, status, 3, 3,
              CASE WHEN status = 'RETRYING' THEN now() + interval '1 hour' END,
              at, at + interval '15 minutes'
         FROM seed`,
    );
    // The headers its attempts share, once per delivery, as the engine keeps them (delivery/request-headers.ts compactShared):
    // the body signature as its 32 bytes and the URL they were sent to; the event is the delivery's, the rest is known from
    // the delivery and the attempt, so no JSON is left (headers null).
    await client.query(
      `INSERT INTO webhook_request_headers (delivery_id, headers, body_signature, url)
       SELECT delivery_id, NULL, decode(md5(delivery_id) || md5(event_id), 'hex'), 'https://hooks.bench.example/plaza'
         FROM seed`,
    );
    // Attempts 1 and 2 answered 500; the third 200 for a delivery that succeeded, 500 otherwise. Each keeps its timestamped
    // signature, as its 32 bytes (request_signature); its URL is the delivery's (null here).
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, response_body_excerpt, url, request_signature, finished)
       SELECT delivery_id, n, 'SCHEDULED', at + (n - 1) * interval '5 minutes', 40 + (i * n) % 300, code,
              CASE WHEN code = 500 THEN 'HTTP 500' END,
              CASE WHEN code = 500 THEN '{"error":"upstream unavailable"}' ELSE '{"ok":true}' END,
              NULL, decode(md5(delivery_id || n) || md5(event_id || n), 'hex'),
              true
         FROM seed, generate_series(1, 3) n,
              LATERAL (SELECT CASE WHEN n = 3 AND status = 'SUCCEEDED' THEN 200 ELSE 500 END AS code) c`,
    );
    await client.query('COMMIT');
  }
  await client.query('VACUUM ANALYZE webhook_events, webhook_deliveries, webhook_attempts, webhook_request_headers');
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export function logQueriesReport(r: LogQueriesResult): string {
  const worstLarge = Math.max(r.large.byApp.p99Ms, r.large.byAppAndStatus.p99Ms, r.large.byPurchase.p99Ms);
  const growth = (key: 'byApp' | 'byAppAndStatus' | 'byPurchase') => r.large[key].p99Ms / r.small[key].p99Ms;
  const row = (f: LogQueryFigures, name: string, http: Timing, service: Timing) =>
    `| ${fmt(f.deliveries)} | ${name} | ${http.p50Ms} ms | **${http.p99Ms} ms** | ${service.p50Ms} ms | ${service.p99Ms} ms | ${http.meanRows} |`;
  const rows = [r.small, r.large].flatMap((f) => [
    row(f, 'app', f.byApp, f.serviceByApp),
    row(f, 'app + status', f.byAppAndStatus, f.serviceByAppAndStatus),
    row(f, 'purchase', f.byPurchase, f.serviceByPurchase),
  ]);
  const sizeRows = [r.small, r.large].flatMap((f) => f.sizes.map((s) => `| ${fmt(f.deliveries)} | ${s.table} | ${mib(s.heapBytes)} | ${mib(s.indexBytes)} |`));
  return `## 4. Delivery log queries (\`webhookDeliveries(first: ${PAGE})\` over HTTP, ${fmt(r.small.deliveries)} then ${fmt(r.large.deliveries)} deliveries)

The developer of ${r.apps} apps, with a \`deliveries:read\` API token, asks for the Webhook Logs page's own
list query; ${fmt(r.requestsPerQuery)} sequential requests per row after a warm-up, each for another app, app and
status, or purchase. Every delivery has three attempts; bodies average ${r.payloadBytes} bytes.
"Service" is the same call made to \`DeliveryLogService.list\` in-process: the SQL without HTTP, token check and GraphQL.

| Deliveries | Filter | HTTP p50 | HTTP p99 | Service p50 | Service p99 | Rows returned (mean) |
|---|---|---|---|---|---|---|
${rows.join('\n')}

| Deliveries | Table | Heap | Indexes |
|---|---|---|---|
${sizeRows.join('\n')}

Bytes on disk per delivery (every table above, heap and indexes, partitions summed): ${[r.small, r.large].map((f) => `${fmt(Math.round(bytesPerDelivery(f)))} at ${fmt(f.deliveries)}`).join(', ')}.

| Target | Now |
|---|---|
| p99 <= 15 ms at ${fmt(r.large.deliveries)} | ${verdict(worstLarge <= 15)} (${worstLarge} ms) |
| p99 at ${fmt(r.large.deliveries)} <= 1.5x p99 at ${fmt(r.small.deliveries)}, app |  ${verdict(growth('byApp') <= 1.5)} (${growth('byApp').toFixed(2)}x) |
| p99 at ${fmt(r.large.deliveries)} <= 1.5x p99 at ${fmt(r.small.deliveries)}, app + status | ${verdict(growth('byAppAndStatus') <= 1.5)} (${growth('byAppAndStatus').toFixed(2)}x) |
| p99 at ${fmt(r.large.deliveries)} <= 1.5x p99 at ${fmt(r.small.deliveries)}, purchase | ${verdict(growth('byPurchase') <= 1.5)} (${growth('byPurchase').toFixed(2)}x) |

What bounds it now: ${boundsText(r)}
`;
}

/** Heap and indexes of every delivery table, per delivery. */
export const bytesPerDelivery = (f: Pick<LogQueryFigures, 'sizes' | 'deliveries'>) => f.sizes.reduce((sum, s) => sum + s.heapBytes + s.indexBytes, 0) / f.deliveries;

/** Where the time of the larger size goes: the SQL (service) against everything around it, and how each grew. */
function boundsText(r: LogQueriesResult): string {
  const { large, small } = r;
  const sql = Math.max(large.serviceByApp.p50Ms, large.serviceByAppAndStatus.p50Ms, large.serviceByPurchase.p50Ms);
  const http = Math.max(large.byApp.p50Ms, large.byAppAndStatus.p50Ms, large.byPurchase.p50Ms);
  const services = (f: LogQueryFigures) => f.serviceByApp.p50Ms + f.serviceByAppAndStatus.p50Ms + f.serviceByPurchase.p50Ms;
  const sqlGrowth = services(large) / services(small);
  return `app + status is one range scan of \`idx_webhook_deliveries_app_status\` (app_id, status, id), newest first, and one
app's whole log the same for each of its four statuses, merged; a purchase's few deliveries are read by their own index. Each
scan stops after ${PAGE + 1} rows (the list
reads no body: a client that asks for \`payload\` gets the page's bodies in one more statement, by event id); the developer's
app ids come with the API token's own statement.
That work does not depend on how much history lies behind the page: the in-process median moved ${sqlGrowth.toFixed(2)}x
from ${fmt(small.deliveries)} to ${fmt(large.deliveries)} deliveries. At ${fmt(large.deliveries)} the SQL is at most ${sql} ms of a ${http} ms
median; the rest is per request, whatever the history: HTTP, the API-token lookup (one indexed SELECT), and GraphQL
executing and serialising up to ${PAGE} deliveries. The p99 is that same path plus scheduling noise on a shared
two-core machine (PostgreSQL, the server and the client all run on it).`;
}
