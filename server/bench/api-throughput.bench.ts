import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { devUserId } from '../modules/identity/identity.service.js';
import { Role } from '../platform/auth/roles.js';
import type { Principal } from '../platform/auth/principal.js';
import { ReviewOutcome } from '../modules/review/review.types.js';
import { Pricing } from '../modules/apps/app.types.js';
import type { RunningPlaza } from '../app/plaza.js';
import { createApps, startBenchDatabase, startBenchPlaza } from './harness.js';
import { seedDeliveries } from './log-queries.bench.js';
import { countCpu, cpuMsPerSecond, type CpuPerUnit } from './server-process.js';
import { fmt, ratio, verdict, type BenchSize } from './report-format.js';

export interface ApiThroughputRun {
  name: string;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Responses (2xx or not) whose body carried GraphQL `errors`. */
  graphqlErrors: number;
  /** Connection errors and timeouts. */
  socketErrors: number;
  /** Share of the run the server's event loop was busy (1 = the Node thread is the bound). */
  serverLoopBusy: number;
  /** CPU per request: the work processes (server, autocannon, PostgreSQL), PostgreSQL's share, and the whole machine's; null without /proc. */
  cpuMsPerRequest: CpuPerUnit | null;
  /** Apps approved (and so listed) during the run, one a second, for the store page's runs. */
  approvals?: number;
  /** Requests answered from the response cache during the run (`x-plaza-cache: hit`), for its run. */
  cacheHits?: number;
}

export interface ApiThroughputResult {
  connections: number;
  durationSeconds: number;
  apps: number;
  deliveries: number;
  runs: ApiThroughputRun[];
}

const SIZES: Record<BenchSize, { connections: number; durationSeconds: number; warmUpSeconds: number }> = {
  tiny: { connections: 10, durationSeconds: 2, warmUpSeconds: 1 },
  full: { connections: 50, durationSeconds: 20, warmUpSeconds: 3 },
};
const APPS = 40;
const DELIVERIES = 5_000;
export const PAGE = 20;

const FLOOR_QUERY = '{ __typename }';
const FLOOR_NAME = '{ __typename } (floor: no token, no resolver)';
const REFERENCE_NAME = 'plain node:http, same body and answer (reference)';
/** The floor's answer, as Apollo writes it. */
const FLOOR_ANSWER = '{"data":{"__typename":"Query"}}\n';

/** The store page's and the Webhook Logs page's own queries (web/src/features), first page. */
export const STORE_QUERY = `query StoreApps($first: Int) {
  storeApps(first: $first) {
    edges { cursor node { id name iconUrl shortDescription pricing pricePoints category } }
    pageInfo { hasNextPage endCursor }
  }
}`;
export const WEBHOOK_LOGS_QUERY = `query WebhookDeliveries($first: Int) {
  webhookDeliveries(first: $first) {
    edges { cursor node { id appId event eventName purchaseId status attemptCount nextAttemptAt createdAt updatedAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const STORE_UNCACHED = `storeApps(first: ${PAGE})`;
const STORE_CACHED = `storeApps(first: ${PAGE}), page cache`;
const STORE_SIGNED_OUT = `storeApps(first: ${PAGE}), signed out, page cache`;
const STORE_RESPONSE_CACHED = `storeApps(first: ${PAGE}), signed out, response cache`;
/**
 * The store page's and the Webhook Logs page's own queries (web/src/features), first page. The store page
 * runs four times, each with an app approved every second (each approval empties the caches), as the issue
 * allows a cache only beside the uncached figure and a realistic change rate: with the API token, its page
 * cache off and on; then signed out, as the public store is read, with the response cache off and on (a
 * signed-in request never uses it), so the response cache's row has the same request uncached beside it.
 */
const QUERIES: { name: string; query: string; storeCache?: boolean; signedOut?: boolean; responseCache?: boolean }[] = [
  { name: STORE_UNCACHED, query: STORE_QUERY, storeCache: false },
  { name: STORE_CACHED, query: STORE_QUERY, storeCache: true },
  { name: STORE_SIGNED_OUT, query: STORE_QUERY, storeCache: true, signedOut: true },
  { name: STORE_RESPONSE_CACHED, query: STORE_QUERY, storeCache: true, signedOut: true, responseCache: true },
  { name: `webhookDeliveries(first: ${PAGE})`, query: WEBHOOK_LOGS_QUERY },
];

/**
 * Benchmark 5: autocannon against POST /graphql with an API token (`apps:read`, `deliveries:read`),
 * one query at a time. The load generator runs in a worker thread so it does not share the server's event loop.
 */
export async function apiThroughputBenchmark(size: BenchSize): Promise<ApiThroughputResult> {
  const { connections, durationSeconds, warmUpSeconds } = SIZES[size];
  const database = await startBenchDatabase();
  // No job worker: the seeded deliveries are settled, and the figure is the API's alone.
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  try {
    const appIds = await seedStore(plaza);
    await seedLog(database.databaseUrl, appIds);
    const { token } = await plaza.services.identity.createApiToken(devUserId('bench@plaza.test'), { name: 'bench', scopes: ['apps:read', 'deliveries:read'] });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const runs: ApiThroughputRun[] = [];
    // The physical reference: what Node's own HTTP costs for the floor's request on this machine.
    runs.push(await referenceRun({ connections, durationSeconds, warmUpSeconds }));
    // The floor, measured the same way in the same run: Express, the rate limiter, Apollo's request
    // pipeline and graphql-js with no token, no resolver and no database. No query can be faster.
    const floorBody = JSON.stringify({ query: FLOOR_QUERY });
    await loadTest({ url: `${plaza.url}/graphql`, headers: { 'content-type': 'application/json' }, body: floorBody, connections, durationSeconds: warmUpSeconds });
    const floorUsage = startUsage();
    const floor = await loadTest({ url: `${plaza.url}/graphql`, headers: { 'content-type': 'application/json' }, body: floorBody, connections, durationSeconds });
    runs.push({ name: FLOOR_NAME, ...floor, ...floorUsage.end(floor.requests) });
    const { storePages, storeResponses } = plaza.services.apps;
    for (const { name, query, storeCache, signedOut, responseCache } of QUERIES) {
      const body = JSON.stringify({ query, variables: { first: PAGE } });
      const runHeaders = signedOut ? { 'content-type': 'application/json' } : headers;
      const approving = storeCache === undefined ? undefined : await startApprovals(plaza, warmUpSeconds + durationSeconds + 2);
      if (storeCache !== undefined) storePages.enabled = storeCache;
      storeResponses.enabled = responseCache === true;
      try {
        await checkFullPage(plaza.url, runHeaders, body, name);
        await loadTest({ url: `${plaza.url}/graphql`, headers: runHeaders, body, connections, durationSeconds: warmUpSeconds });
        const approvedBefore = approving?.approved() ?? 0;
        const hitsBefore = await storeCacheHits(plaza);
        const usage = startUsage();
        const run = await loadTest({ url: `${plaza.url}/graphql`, headers: runHeaders, body, connections, durationSeconds });
        runs.push({
          name,
          ...run,
          ...usage.end(run.requests),
          ...(approving ? { approvals: approving.approved() - approvedBefore } : {}),
          ...(responseCache ? { cacheHits: (await storeCacheHits(plaza)) - hitsBefore } : {}),
        });
      } finally {
        await approving?.stop();
        storePages.enabled = true;
        storeResponses.enabled = true;
      }
    }
    return { connections, durationSeconds, apps: APPS, deliveries: DELIVERIES, runs };
  } finally {
    await plaza.stop();
    await database.close();
  }
}

/**
 * A plain node:http server in this process, as the Plaza server is: it reads the floor's JSON body,
 * parses it and answers the floor's answer, so the difference to the floor is what Plaza's layers cost.
 */
export function startReferenceServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query?: unknown };
      if (typeof body.query !== 'string') {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(FLOOR_ANSWER) });
      res.end(FLOOR_ANSWER);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}

/** The reference row: the floor's request against startReferenceServer, with the floor's settings and counting. */
async function referenceRun({ connections, durationSeconds, warmUpSeconds }: { connections: number; durationSeconds: number; warmUpSeconds: number }): Promise<ApiThroughputRun> {
  const reference = await startReferenceServer();
  try {
    const settings = { url: `${reference.url}/graphql`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: FLOOR_QUERY }), connections };
    await loadTest({ ...settings, durationSeconds: warmUpSeconds });
    const usage = startUsage();
    const run = await loadTest({ ...settings, durationSeconds });
    return { name: REFERENCE_NAME, ...run, ...usage.end(run.requests) };
  } finally {
    await reference.close();
  }
}

/** Signed-out store reads answered from the response cache so far (its counter on /metrics). */
async function storeCacheHits(plaza: RunningPlaza): Promise<number> {
  const metric = await plaza.services.metrics.registry.getSingleMetric('plaza_store_response_cache_total')?.get();
  return metric?.values.find((value) => value.labels.result === 'hit')?.value ?? 0;
}

/** The server's event loop and the CPU (the work processes' and the machine's) from now until `end`, per request. */
function startUsage() {
  const loop = performance.eventLoopUtilization();
  const cpu = countCpu();
  return {
    end: (requests: number): Pick<ApiThroughputRun, 'serverLoopBusy' | 'cpuMsPerRequest'> => ({
      serverLoopBusy: performance.eventLoopUtilization(loop).utilization,
      cpuMsPerRequest: cpu.per(requests),
    }),
  };
}

/** `APPS` apps of the bench developer, each approved by a reviewer through the review service, so the store lists them. */
export async function seedStore(plaza: RunningPlaza): Promise<string[]> {
  const { services } = plaza;
  const { appIds } = await createApps(plaza, APPS, 'https://hooks.bench.example/plaza');
  const { account } = await services.identity.signIn({ id: devUserId('reviewer@plaza.test'), email: 'reviewer@plaza.test', provider: 'dev' });
  const reviewer: Principal = { kind: 'session', userId: account.id, email: account.email, roles: new Set([Role.REVIEWER, Role.USER]), sessionId: 'bench' };
  for (const appId of appIds) await services.review.decide(reviewer, { appId, outcome: ReviewOutcome.APPROVED });
  return appIds;
}

let approvalDevelopers = 0;

/**
 * Approves one new app a second until stopped, as reviewers would on a busy day: each approval lists a
 * new app at the top of the store and empties the store's page cache. The apps are submitted up front
 * (by a developer of their own, within MAX_APPS_PER_DEVELOPER), so only the approvals fall in the run.
 */
async function startApprovals(plaza: RunningPlaza, seconds: number): Promise<{ approved(): number; stop(): Promise<void> }> {
  const { services } = plaza;
  const email = `approvals-${++approvalDevelopers}@plaza.test`;
  const { account } = await services.identity.signIn({ id: devUserId(email), email, provider: 'dev' });
  const developer: Principal = { kind: 'session', userId: account.id, email: account.email, roles: new Set([Role.DEVELOPER, Role.USER]), sessionId: 'bench' };
  const { account: reviewerAccount } = await services.identity.signIn({ id: devUserId('reviewer@plaza.test'), email: 'reviewer@plaza.test', provider: 'dev' });
  const reviewer: Principal = { kind: 'session', userId: reviewerAccount.id, email: reviewerAccount.email, roles: new Set([Role.REVIEWER, Role.USER]), sessionId: 'bench' };
  const pending: string[] = [];
  for (let i = 0; i < seconds; i++) {
    const app = await services.apps.submit(developer, {
      name: `Newly listed ${approvalDevelopers}-${i}`,
      shortDescription: 'approved during the run',
      iconUrl: 'https://bench.example/icon.png',
      appUrl: 'https://bench.example/',
      category: 'utilities',
      pricing: Pricing.FREE,
      pricePoints: null,
      webhookUrl: null,
    });
    pending.push(app.id);
  }
  let approved = 0;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    const appId = pending.shift();
    if (!appId) return;
    running = services.review.decide(reviewer, { appId, outcome: ReviewOutcome.APPROVED }).then(() => approved++);
  }, 1000);
  return {
    approved: () => approved,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

export async function seedLog(databaseUrl: string, appIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await seedDeliveries(client, appIds, 0, DELIVERIES, Date.now() - DELIVERIES * 60_000);
  } finally {
    await client.end();
  }
}

/** One request before the run: it must answer data, no errors and a full page, or the run would measure the wrong thing. */
async function checkFullPage(url: string, headers: Record<string, string>, body: string, name: string): Promise<void> {
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers, body });
  const json = (await response.json()) as { data?: Record<string, { edges: unknown[] }>; errors?: unknown[] };
  const edges = json.data ? Object.values(json.data)[0]?.edges.length : 0;
  if (response.status !== 200 || json.errors || edges !== PAGE) throw new Error(`${name}: status ${response.status}, ${edges} edges, errors ${JSON.stringify(json.errors)}`);
}

/**
 * autocannon in a worker thread. The worker is plain CommonJS given as source (autocannon is
 * CommonJS), so it loads nothing of Plaza; it counts bodies carrying GraphQL `errors` as they arrive.
 */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require(workerData.autocannonPath);
let graphqlErrors = 0;
const marker = Buffer.from('"errors"');
autocannon(
  { ...workerData.options, setupClient: (client) => client.on('body', (body) => { if (body.includes(marker)) graphqlErrors++; }) },
  // Inside a worker thread autocannon hands back raw histograms; aggregating them is left to the caller.
  (err, raw) => { const result = err ? undefined : autocannon.aggregateResult([raw], workerData.options); parentPort.postMessage(err ? { error: String(err) } : {
    requests: result.requests.total,
    requestsPerSecond: raw.totalCompletedRequests / raw.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    socketErrors: result.errors + result.timeouts,
    graphqlErrors,
  }); },
);`;

export async function loadTest(run: {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationSeconds: number;
}): Promise<Omit<ApiThroughputRun, 'name' | 'serverLoopBusy'>> {
  const autocannonPath = createRequire(import.meta.url).resolve('autocannon');
  const options = { url: run.url, method: 'POST', headers: run.headers, body: run.body, connections: run.connections, duration: run.durationSeconds };
  const worker = new Worker(LOAD_WORKER, { eval: true, workerData: { autocannonPath, options } });
  try {
    const reply = await new Promise<Omit<ApiThroughputRun, 'name' | 'serverLoopBusy'> & { error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`load worker exited with ${code}`)));
    });
    if (reply.error) throw new Error(`autocannon: ${reply.error}`);
    return reply;
  } finally {
    await worker.terminate();
  }
}

export function apiThroughputReport(r: ApiThroughputResult): string {
  return `## 5. API throughput (autocannon, ${r.connections} connections, ${r.durationSeconds} s per query, API token)

POST /graphql with \`content-type: application/json\` and an API token (\`apps:read\`, \`deliveries:read\`),
checked on every request, except the floor and the rows marked "signed out", which send no credential (as the public store is read). ${r.apps} approved apps in the store, ${fmt(r.deliveries)} deliveries in the log.
autocannon runs in a worker thread, off the server's event loop; both share this machine's cores. The first row is the
physical reference: a plain \`node:http\` server in the same process that reads the floor's JSON body, parses it and answers
the floor's answer, driven and counted the same way, so the floor's distance to it is what Plaza's layers cost.

| Query | Requests | Requests/s | p50 | p99 | Non-2xx | GraphQL errors | Socket errors | Server event loop busy | CPU per request: work processes / PostgreSQL | CPU per request: machine (reference) | Work CPU vs plain node:http (goal) | Work CPU vs the floor (goal) | Target >= 2,000/s |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${r.runs.map((x) => `| \`${x.name}\` | ${fmt(x.requests)} | **${fmt(x.requestsPerSecond)}** | ${x.p50Ms} ms | ${x.p99Ms} ms | ${x.non2xx} | ${x.graphqlErrors} | ${x.socketErrors} | ${Math.round(x.serverLoopBusy * 100)}% | ${x.cpuMsPerRequest ? `${x.cpuMsPerRequest.work.toFixed(2)} / ${x.cpuMsPerRequest.postgres.toFixed(2)} ms | ${x.cpuMsPerRequest.machine.toFixed(2)} ms` : 'n/a | n/a'} | ${versus(r, x, REFERENCE_NAME, REFERENCE_RATIO_GOALS)} | ${versus(r, x, FLOOR_NAME, FLOOR_RATIO_GOALS)} | ${x.name === FLOOR_NAME || x.name === REFERENCE_NAME ? 'baseline' : verdict(x.requestsPerSecond >= 2000 && x.non2xx === 0 && x.graphqlErrors === 0)} |`).join('\n')}

Every \`storeApps\` run approves one app a second (${r.runs
    .filter((x) => x.approvals !== undefined)
    .map((x) => `${x.approvals} approvals during \`${x.name}\``)
    .join(', ')}), so
a new app is listed at the top of the store and the caches are emptied each time; the first run has the page cache off, and
only the \`response cache\` run has the response cache on (${r.runs
    .filter((x) => x.cacheHits !== undefined)
    .map((x) => `${fmt(x.cacheHits!)} of its ${fmt(x.requests)} requests answered from it`)
    .join('')}; the others went to the GraphQL server).

"CPU per request: work processes" is the CPU of the processes doing the run, from /proc/<pid>/stat: this benchmark's
process (the server and autocannon's worker thread) and every process below it (the embedded PostgreSQL), with
PostgreSQL's share of it; "machine" is every process on the machine (/proc/stat), other people's included, for reference only.
The libraries run in production mode (NODE_ENV=production, as deployed).

What bounds it now: ${boundsText(r)}
`;
}

/** Goals for CPU per request (work processes) against the floor's, in the same run (issues 19 and 30). */
const FLOOR_RATIO_GOALS: Record<string, number> = {
  [STORE_UNCACHED]: 1.5,
  [STORE_CACHED]: 1.5,
  [STORE_SIGNED_OUT]: 1.5,
  [`webhookDeliveries(first: ${PAGE})`]: 2,
};

/** Goals against plain node:http's, in the same run (issue 30): what Plaza's layers may add to Node's HTTP. */
const REFERENCE_RATIO_GOALS: Record<string, number> = {
  [FLOOR_NAME]: 4,
  [STORE_RESPONSE_CACHED]: 1.5,
};

function versus(r: ApiThroughputResult, x: ApiThroughputRun, baseName: string, goals: Record<string, number>): string {
  const base = r.runs.find((run) => run.name === baseName)?.cpuMsPerRequest;
  if (x.name === baseName) return '1x';
  const goal = goals[x.name];
  if (!base || !x.cpuMsPerRequest) return 'n/a';
  const times = x.cpuMsPerRequest.work / base.work;
  return `${times.toFixed(1)}x${goal === undefined ? '' : ` (<= ${goal}x: ${verdict(times <= goal)})`}`;
}

/** The server's Node thread time per request, from how busy its event loop was during each run, against the floor; and the machine's CPU budget. */
function boundsText(r: ApiThroughputResult): string {
  const perRequest = (x: ApiThroughputRun) => (x.serverLoopBusy * 1000) / x.requestsPerSecond;
  const floor = r.runs.find((x) => x.name === FLOOR_NAME)!;
  const reference = r.runs.find((x) => x.name === REFERENCE_NAME);
  const queries = r.runs.filter((x) => x !== floor && x !== reference);
  const busiest = Math.max(...r.runs.map((x) => x.serverLoopBusy));
  const budgetMs = cpuMsPerSecond() / 2000;
  const cpu = (x: ApiThroughputRun) => (x.cpuMsPerRequest ? `${x.cpuMsPerRequest.work.toFixed(2)} ms (PostgreSQL ${x.cpuMsPerRequest.postgres.toFixed(2)})` : 'not measured');
  const ceiling = (x: ApiThroughputRun) => (x.cpuMsPerRequest ? `at most ${fmt(cpuMsPerSecond() / x.cpuMsPerRequest.work)}/s` : 'no ceiling measured');
  return `the server's one Node thread. Its event loop was busy up to ${Math.round(busiest * 100)}% of each run, so requests
queue for it, not for PostgreSQL. Per request it spent ${perRequest(floor).toFixed(2)} ms on the floor (\`{ __typename }\`: Express,
the rate limiter, metrics, Apollo's pipeline and the executor, nothing else) and ${queries.map((x) => `${perRequest(x).toFixed(2)} ms on \`${x.name}\``).join(', ')}:
the queries run at ${queries.map((x) => ratio(x.requestsPerSecond, floor.requestsPerSecond)).join(', ')} of the floor's rate. The difference is each query's own work: the token check,
the page's statements, and resolving and serialising 20 items.

Why 2,000/s is out of reach on this machine: however many API processes share its ${cpus().length} cores, they cannot serve more
requests per second than the cores' CPU divided by the CPU one request takes, every process together (server, autocannon,
PostgreSQL). Measured: plain node:http ${reference ? `${cpu(reference)}, ${ceiling(reference)}` : 'not measured'}; the floor ${cpu(floor)}, ${ceiling(floor)}; ${queries.map((x) => `\`${x.name}\` ${cpu(x)}, ${ceiling(x)}`).join('; ')}.
2,000/s needs ${budgetMs.toFixed(2)} ms or less per request here. On a machine with cores for each API process (README, Scaling out)
the figure grows with the processes until PostgreSQL's share of each request fills the database's cores.

Done so far: the token check is one prepared statement and Apollo's cache-control plugin (which wrapped every resolver)
is off, about +30%; request loggers are handed along instead of kept in AsyncLocalStorage, whose promise hooks taxed
every promise in the process (+8-13%); the store page and the Webhook Logs' list of the developer's apps are prepared
statements instead of TypeORM's query builder (PostgreSQL spent nearly as long planning them as running them, and
the builder cost more than the query: store page +15-20%, Webhook Logs +14%); timestamps are read by character
codes instead of regular expressions (+9% on the store page). Operations run compiled by graphql-jit (through Apollo's
gateway executor; a document asked for twice is compiled once): executing the store page fell from 83 to 27 µs and
the Webhook Logs page from 420 to 341 µs (CPU per execution, best of 8 interleaved rounds in one process). The store
page is kept in memory for a second and emptied by every approval (the \`page cache\` row; the row above it is the same
query with the cache off). Signed-out store reads are answered whole from memory for up to a second and emptied by
every approval (the \`response cache\` row; the \`signed out, page cache\` row above it is the same request without it):
a hit is answered by an Express middleware in front of Apollo with the bytes and headers of the answer it kept, so it
skips Apollo's pipeline, the executor and serialising, and pays the floor's Express layers plus its key (the request
body as JSON, a map look-up). The Webhook Logs page's statement no longer reads the bodies, which the list does not show (a
client that asks for \`payload\` gets them in one statement per page): in EXPLAIN ANALYZE on this data, planning 0.115 -> 0.088 ms
and running 0.066 -> 0.029 ms (medians), PostgreSQL's share per request 0.50 -> 0.38 ms here. Each measured A/B in one session.

What is left against the floor (issue 19's goals: at most 1.5x for the store page, 2x for the Webhook Logs): every request
pays the floor, which is Node's HTTP (parsing, and the response's writev, a tenth of the server thread), Express's layers
(metrics, request id and access log line, security headers, rate limiter, body parser) and Apollo's pipeline (hashing the
query, plugins, the limits check). Uncached, the store page adds the API token's check (a PostgreSQL round trip), its own
statement with the parsing of 21 rows (about a quarter of the server thread in a profile) and 20 items resolved and serialised;
the page cache takes away the statement, and the token check and the 20 items remain. Signed out, the response cache
takes away everything but Express and the HTTP work; what is left of a run is its misses (the first request after each
approval, and after each second) and the approvals themselves. Apollo's response-cache plugin was weighed, not measured:
it needs the cache-control plugin back, which wraps every resolver of every request (removed above for +30%), and a hit of
it still runs Apollo's request pipeline up to execution, which is most of the floor; a hit in front of Apollo does less than
the floor. The Webhook Logs page is not cached (it is per developer and changes with every delivery): it adds the token, the developer's apps and the page's statement,
which PostgreSQL plans afresh on each call (planning costs three times the running, idle) because a generic plan for "these
apps" could not know how many rows each app has; with their round trips, PostgreSQL's share alone is most of the floor's CPU.`;
}
