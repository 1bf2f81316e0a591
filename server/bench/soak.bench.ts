import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { REPO_ROOT } from '../config.js';
import type { RunningPlaza } from '../app/plaza.js';
import { findFreePort } from '../platform/embedded-postgres.js';
import { newPurchaseId } from '../platform/ids.js';
import { Role } from '../platform/auth/roles.js';
import type { Principal } from '../platform/auth/principal.js';
import { devUserId } from '../modules/identity/identity.service.js';
import { Pricing } from '../modules/apps/app.types.js';
import { ReviewOutcome } from '../modules/review/review.types.js';
import { WebhookEventType } from '../modules/webhooks/webhook.types.js';
import { benchKey, percentile, roundRobin, startBenchDatabase, startBenchPlaza, startReceiver, type Receiver } from './harness.js';
import { descendantPids, proportionalMiB, residentMiB, startServerProcess, workProcessesCpuMs, type ServerProcess } from './server-process.js';
import { fmt, verdict, type BenchSize } from './report-format.js';
import { askedDatabaseSettings, databaseWindowsTable, prepareStatementStatistics, readDatabase, SOAK_DATABASE_SETTINGS, type DatabaseReading } from './soak-database.js';
import {
  latencyVerdict,
  memoryVerdicts,
  nothingLost,
  silentSamples,
  soakWindows,
  storageVerdict,
  MEMORY_TOLERANCE,
  P99_SLACK_MS,
  P99_TOLERANCE,
  STORAGE_TOLERANCE,
  type LatencyVerdict,
  type LossCounts,
  type MemoryVerdict,
  type SoakSample,
  type StorageVerdict,
} from './soak-verdicts.js';

/**
 * BENCHMARKS.md section 4's bytes on disk per delivery for the current schema (2,255 at 100,000 deliveries,
 * plus about 110 since webhook_deliveries is at fillfactor 50), with three attempts a delivery; of it,
 * webhook_attempts' heap and index (921).
 */
export const SECTION_4_BYTES_PER_DELIVERY = 2_365;
export const SECTION_4_ATTEMPT_BYTES = 921;
/**
 * The tables section 4 counts (the log itself), each with its bytes per delivery there: the deliveries' 772 with
 * endpoints' 27 and fillfactor 50's 110. The rollups and the other webhook tables are reported beside them.
 */
const SECTION_4_TABLE_BYTES: Record<string, number> = { webhook_events: 353, webhook_deliveries: 909, webhook_attempts: SECTION_4_ATTEMPT_BYTES, webhook_request_headers: 184 };
const LOG_TABLES = Object.keys(SECTION_4_TABLE_BYTES);
const ROLLUP_TABLE = /_(hourly|minutely|health)$/;

const APPS = 10;
/** Every this-many-th delivery answers its first attempt 500 (2%): its retry is part of the load. */
const FAIL_EVERY = 50;
/** Commits (and purchases) in flight at most: past it the producer falls behind its schedule, and the report says by how much. */
const MAX_IN_FLIGHT = 64;
const SUBSCRIPTION = 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status updatedAt } }';
const PURCHASE = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
/** The Webhook Logs page's list query (web/src/features), first page of 50. */
const LOG_QUERY = `query WebhookDeliveries($first: Int) {
  webhookDeliveries(first: $first) {
    edges { cursor node { id appId event eventName purchaseId status attemptCount nextAttemptAt createdAt updatedAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const LOG_PAGE = 50;
const DEVELOPER_EMAIL = 'bench@plaza.test';

/** What the soak reads every `sampleSeconds`, beside the figures the verdicts take. */
export interface SoakRow extends SoakSample {
  load1: number;
  /** Every webhook table with its indexes and partitions; the log's tables (section 4's) apart. */
  webhookBytes: number;
  logBytes: number;
  rollupBytes: number;
  /** Each webhook table's bytes (its partitions summed). */
  tableBytes: Record<string, number>;
  /** Delivery rows, attempt rows, deliveries not settled yet (PENDING or RETRYING), 200s the receiver answered. */
  recorded: number;
  attempts: number;
  backlog: number;
  received: number;
  subscriberUpdates: number;
  /** The subscribed app's deliveries settled (SUCCEEDED or FAILED) so far: each is an update the subscriber should get. */
  subscribedSettled: number;
  /** The claim's and the result write's timings, checkpoints and writes, the delivery tables' sizes and upkeep (soak-database.ts). */
  database: DatabaseReading;
  /** CPU so far (ms) of the API process, the worker process, PostgreSQL, and this process (producers, clients, the receiver's thread). */
  cpuMs: { api: number; worker: number; postgres: number; bench: number };
}

export interface SoakResult {
  minutes: number;
  ratePerSecond: number;
  purchasesPerSecond: number;
  retrySchedule: string;
  /** SOAK_POSTGRES_SETTINGS: the database settings asked beside the defaults. */
  postgresSettings: Record<string, string>;
  warmUpSeconds: number;
  windowSeconds: number;
  sampleSeconds: number;
  /** Seconds the load actually ran (less than asked when stopped early). */
  ranSeconds: number;
  rows: SoakRow[];
  /** The first and last windows' samples (as the verdicts take them), for the database's comparison. */
  windows: { first: SoakRow[]; last: SoakRow[] };
  memory: MemoryVerdict[];
  latency: LatencyVerdict;
  reader: LatencyVerdict & { requests: number; errors: number };
  storage: StorageVerdict;
  rollupBytesPerDelivery: number;
  /** Each log table's growth per delivery, beside section 4's figure for it. */
  tableBytesPerDelivery: { table: string; measured: number; section4: number }[];
  losses: LossCounts;
  /** After warm-up: updates the subscriber got, and its app's deliveries settled (one SUCCEEDED or FAILED update each, at least). */
  subscriber: { updates: number; settled: number };
  failedOnce: number;
  producer: { committed: number; errors: number; firstError?: string; lagP50Ms: number; lagP99Ms: number; lagMaxMs: number };
  purchases: { answeredOk: number; refused: number; firstRefusal?: string };
  /** Deliveries recorded and settled per second after warm-up; the backlog at its largest and when the load stopped; seconds to drain it. */
  recordedPerSecond: number;
  settledPerSecond: number;
  maxBacklog: number;
  backlogAtEnd: number;
  drainSeconds: number;
  drained: boolean;
  cpuMsPerDelivery: { api: number; worker: number; postgres: number; bench: number };
  loadAverage: { start: number[]; end: number[] };
  /** PostgreSQL's shared_buffers: its Pss grows as its processes touch them, up to this much. */
  sharedBuffersMiB: number;
  /** webhook_deliveries at the end: heap and index bytes per row, dead rows, and how often autovacuum ran on it. */
  deliveriesTable: { heapBytesPerRow: number; indexBytesPerRow: number; liveRows: number; deadRows: number; autovacuums: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Settings from the environment, SOAK_MINUTES, SOAK_DELIVERIES_PER_SECOND and SOAK_POSTGRES_SETTINGS, and the windows they make. */
export function soakSettings(size: BenchSize, env: NodeJS.ProcessEnv = process.env) {
  const minutes = Number(env.SOAK_MINUTES ?? (size === 'tiny' ? 0.5 : 30));
  const ratePerSecond = Number(env.SOAK_DELIVERIES_PER_SECOND ?? 200);
  const purchasesPerSecond = Math.min(ratePerSecond, Number(env.SOAK_PURCHASES_PER_SECOND ?? 3));
  const warmUpSeconds = Number(env.SOAK_WARMUP_SECONDS ?? (size === 'tiny' ? 10 : 120));
  // The default schedule (first retry after 5 s); the tiny run's first retry comes after 1 s, so its drain fits in CI's minute.
  const retrySchedule = size === 'tiny' ? '1s,30s,5m,30m,2h' : '5s,30s,5m,30m,2h';
  const durationSeconds = minutes * 60;
  if (!(durationSeconds > warmUpSeconds) || !(ratePerSecond > 0))
    throw new Error(`SOAK_MINUTES (${minutes}) must leave time after the warm-up (${warmUpSeconds} s), at a rate above 0`);
  // Five minutes at each end, or halves of a shorter run; a window holds at least five samples.
  const windowSeconds = Math.min(300, (durationSeconds - warmUpSeconds) / 2);
  const sampleSeconds = Math.min(30, windowSeconds / 5);
  const postgresSettings = askedDatabaseSettings(env);
  return { minutes, ratePerSecond, purchasesPerSecond, warmUpSeconds, durationSeconds, windowSeconds, sampleSeconds, retrySchedule, postgresSettings };
}

/**
 * Benchmark 10: Plaza as deployed (an API process with RUN_WORKER=false and a worker process, NODE_ENV=production)
 * under a steady open-loop load for SOAK_MINUTES: events committed on schedule to 10 apps through `recordEvent`, a
 * purchase stream through the API's purchaseApp, one graphql-ws subscriber to one app's delivery updates and a
 * Webhook Logs reader once a second with an API token. Sampled every `sampleSeconds`; the verdicts compare the
 * first window after warm-up with the last.
 */
export async function soakBenchmark(size: BenchSize): Promise<SoakResult> {
  const settings = soakSettings(size);
  const { purchasesPerSecond, durationSeconds, retrySchedule } = settings;
  const loadStart = loadavg();
  // SIGINT to this process (kill -INT) ends the load early, with its report; Ctrl-C in a terminal reaches the
  // children as well, and then only the clean-up below is sure to run.
  let interrupted = false;
  const onSignal = () => void (interrupted = true);
  process.once('SIGINT', onSignal);
  const setUpStarted = performance.now();
  const database = await startBenchDatabase({ ...SOAK_DATABASE_SETTINGS, ...settings.postgresSettings });
  const closers: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    // The statistics views as the cluster's superuser where there is one (Plaza's role may not reset them).
    const statistics = new pg.Client({ connectionString: database.superuserUrl ?? database.databaseUrl });
    await statistics.connect();
    closers.push(() => statistics.end());
    // This process's own Plaza (no worker) creates the apps and the accounts and commits the scheduled events.
    const producer = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
    closers.push(() => producer.stop());
    const receiverPort = await findFreePort();
    const serverEnv = {
      DATABASE_URL: database.databaseUrl,
      SECRET_ENCRYPTION_KEY: benchKey,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEB_DIST_DIR: '/nonexistent',
      NODE_ENV: 'production',
      WEBHOOK_RETRY_SCHEDULE: retrySchedule,
    };
    // The worker serves only /healthz, /readyz and /metrics, on WORKER_HTTP_PORT; PORT is where they are awaited.
    const [apiPort, workerPort] = [String(await findFreePort()), String(await findFreePort())];
    // The processes start while this one makes the apps and the buyers (the schema is in place: the producer migrated it).
    const [processes, accounts] = await Promise.all([
      Promise.allSettled([
        startServerProcess({ ...serverEnv, PORT: apiPort, RUN_WORKER: 'false' }),
        startServerProcess({ ...serverEnv, PORT: workerPort, WORKER_HTTP_PORT: workerPort }, { entry: path.join(REPO_ROOT, 'server/dist/worker.js') }),
      ]),
      Promise.allSettled([
        createPaidApps(producer, `http://127.0.0.1:${receiverPort}/bench/webhook`),
        createBuyers(producer, Math.ceil((purchasesPerSecond * durationSeconds) / APPS) + 1),
      ]),
    ]);
    const running = processes.flatMap((p) => (p.status === 'fulfilled' ? [p.value] : []));
    closers.push(() => Promise.all(running.map((p) => p.stop())));
    for (const result of [...processes, ...accounts]) if (result.status === 'rejected') throw result.reason;
    const [api, worker] = running as [ServerProcess, ServerProcess];
    const [{ appIds, secretsByAppId }, buyers] = accounts.map((a) => (a as PromiseFulfilledResult<unknown>).value) as [Awaited<ReturnType<typeof createPaidApps>>, string[]];
    const receiver = await startReceiver(secretsByAppId, { port: receiverPort, recordArrivals: true, recordVerified: true, failEvery: FAIL_EVERY });
    closers.push(() => receiver.close());
    const { token: developerToken } = await producer.services.identity.signIn({ id: devUserId(DEVELOPER_EMAIL), email: DEVELOPER_EMAIL, provider: 'dev' });
    const { token: apiToken } = await producer.services.identity.createApiToken(devUserId(DEVELOPER_EMAIL), { name: 'soak', scopes: ['deliveries:read'] });
    const subscriber = await startSubscriber(api.url, developerToken, appIds[0]!);
    closers.push(() => subscriber.close());

    process.stderr.write(`soak: set up in ${((performance.now() - setUpStarted) / 1000).toFixed(1)} s\n`);
    const withStatements = await prepareStatementStatistics(statistics);
    const run = new SoakRun(producer, receiver, api, worker, appIds, buyers, apiToken, subscriber, settings, () => interrupted, statistics, withStatements);
    return await run.execute(loadStart);
  } finally {
    process.off('SIGINT', onSignal);
    // Newest first; each is tried whatever the others do, so no PostgreSQL or process is left behind.
    const cleanUpStarted = performance.now();
    for (const close of closers.reverse()) await close().catch((err: unknown) => process.stderr.write(`soak clean-up: ${String(err)}\n`));
    process.stderr.write(`soak: cleaned up in ${((performance.now() - cleanUpStarted) / 1000).toFixed(1)} s\n`);
  }
}

class SoakRun {
  private readonly started = Date.now();
  private readonly rows: SoakRow[] = [];
  /** purchase_id of each scheduled event -> when its commit returned (undefined until then); removed once received. */
  private readonly awaitingReceipt = new Map<string, number | undefined>();
  private readerMs: number[] = [];
  private readerErrors = 0;
  private readonly deliveryIds: string[] = [];
  private readonly purchaseIds: string[] = [];
  private readonly verified = new Set<string>();
  private failedOnce = 0;
  private producerErrors = 0;
  private firstProducerError?: string;
  private refusedPurchases = 0;
  private firstRefusal?: string;
  private readonly lagsMs: number[] = [];

  constructor(
    private readonly producer: RunningPlaza,
    private readonly receiver: Receiver,
    private readonly api: ServerProcess,
    private readonly worker: ServerProcess,
    private readonly appIds: string[],
    private readonly buyers: string[],
    private readonly apiToken: string,
    private readonly subscriber: Subscriber,
    private readonly settings: ReturnType<typeof soakSettings>,
    private readonly interrupted: () => boolean,
    private readonly statistics: pg.Client,
    private readonly withStatements: boolean,
  ) {}

  private readonly seconds = () => (Date.now() - this.started) / 1000;

  async execute(loadStart: number[]): Promise<SoakResult> {
    const { ratePerSecond, purchasesPerSecond, durationSeconds, warmUpSeconds, windowSeconds, sampleSeconds } = this.settings;
    const until = this.started + durationSeconds * 1000;
    const stopped = () => this.interrupted() || Date.now() >= until;
    // Each sample is stamped with its scheduled time, so a sample taken a little late stays in its window.
    const sampler = (async () => {
      for (let k = 1; k * sampleSeconds <= durationSeconds + 1e-6 && !this.interrupted(); k++) {
        await sleep(this.started + k * sampleSeconds * 1000 - Date.now());
        if (!this.interrupted()) this.rows.push(await this.sample(k * sampleSeconds));
      }
    })();
    const reader = this.readLog(stopped);
    await Promise.all([
      openLoop(ratePerSecond - purchasesPerSecond, stopped, this.lagsMs, (i) => this.commitEvent(i)),
      purchasesPerSecond > 0 ? openLoop(purchasesPerSecond, stopped, this.lagsMs, (i) => this.purchase(i)) : undefined,
      reader,
    ]);
    await sampler;
    // Stopped early (Ctrl-C): one more sample, at the time the load ended.
    if ((this.rows.at(-1)?.atSeconds ?? 0) < Math.min(durationSeconds, this.seconds()) - sampleSeconds) this.rows.push(await this.sample(this.seconds()));
    const loadEnd = this.rows.at(-1);
    if (!loadEnd) throw new Error('the soak was stopped before its first sample');
    const endSeconds = loadEnd.atSeconds;
    const backlogAtEnd = loadEnd.backlog;

    // The backlog the load left, then its last retries (5 s by the default schedule), given time to finish.
    const drainStarted = Date.now();
    const drainLimitMs = Math.max(30_000, Math.min(600_000, (backlogAtEnd / ratePerSecond) * 3000));
    let last = await this.counts();
    while (last.backlog > 0 && Date.now() - drainStarted < drainLimitMs && !this.interrupted()) {
      await sleep(500);
      last = await this.counts();
    }
    const drainSeconds = (Date.now() - drainStarted) / 1000;
    await this.collectReceipts();
    const final = { ...(await this.sizes()), ...last };

    const windows = soakWindows(this.rows, warmUpSeconds, endSeconds, windowSeconds);
    const baseline = this.rows.find((r) => r.atSeconds >= warmUpSeconds - 1e-6) ?? loadEnd;
    const measured = Math.max(1e-3, loadEnd.atSeconds - baseline.atSeconds);
    const grown = loadEnd.recorded - baseline.recorded;
    const per = (key: keyof SoakRow['cpuMs']) => (loadEnd.cpuMs[key] - baseline.cpuMs[key]) / Math.max(1, grown);
    const settled = (row: { recorded: number; backlog: number }) => row.recorded - row.backlog;
    const storage = storageVerdict({
      grownBytes: final.logBytes - baseline.logBytes,
      deliveries: final.recorded - baseline.recorded,
      attempts: final.attempts - baseline.attempts,
      statedBytesPerDelivery: SECTION_4_BYTES_PER_DELIVERY,
      attemptBytes: SECTION_4_ATTEMPT_BYTES,
    });
    const afterWarmUp = this.rows.filter((r) => r.atSeconds > warmUpSeconds + 1e-6);
    const losses = await this.losses();
    return {
      minutes: this.settings.minutes,
      ratePerSecond,
      purchasesPerSecond,
      retrySchedule: this.settings.retrySchedule,
      postgresSettings: this.settings.postgresSettings,
      warmUpSeconds,
      windowSeconds,
      sampleSeconds,
      ranSeconds: endSeconds,
      rows: this.rows,
      windows: windows as { first: SoakRow[]; last: SoakRow[] },
      memory: memoryVerdicts(windows),
      latency: latencyVerdict(windows),
      reader: { ...latencyVerdict(windows, (s) => s.readerMs), requests: this.rows.reduce((n, r) => n + r.readerMs.length, 0), errors: this.readerErrors },
      storage,
      rollupBytesPerDelivery: (final.rollupBytes - baseline.rollupBytes) / Math.max(1, storage.deliveries),
      tableBytesPerDelivery: Object.entries(SECTION_4_TABLE_BYTES).map(([table, section4]) => ({
        table,
        measured: ((final.tableBytes[table] ?? 0) - (baseline.tableBytes[table] ?? 0)) / Math.max(1, storage.deliveries),
        section4,
      })),
      losses,
      subscriber: { updates: afterWarmUp.reduce((n, r) => n + r.subscriberUpdates, 0), settled: loadEnd.subscribedSettled - baseline.subscribedSettled },
      failedOnce: this.failedOnce,
      producer: {
        committed: this.deliveryIds.length,
        errors: this.producerErrors,
        firstError: this.firstProducerError,
        lagP50Ms: percentile(this.lagsMs, 50),
        lagP99Ms: percentile(this.lagsMs, 99),
        lagMaxMs: this.lagsMs.reduce((a, b) => Math.max(a, b), 0),
      },
      purchases: { answeredOk: this.purchaseIds.length, refused: this.refusedPurchases, firstRefusal: this.firstRefusal },
      recordedPerSecond: grown / measured,
      settledPerSecond: (settled(loadEnd) - settled(baseline)) / measured,
      maxBacklog: this.rows.reduce((m, r) => Math.max(m, r.backlog), 0),
      backlogAtEnd,
      drainSeconds,
      drained: last.backlog === 0,
      cpuMsPerDelivery: { api: per('api'), worker: per('worker'), postgres: per('postgres'), bench: per('bench') },
      loadAverage: { start: loadStart, end: loadavg() },
      sharedBuffersMiB: await this.sharedBuffersMiB(),
      deliveriesTable: await this.deliveriesTable(final.recorded),
    };
  }

  /** Where webhook_deliveries' bytes are: the row an engine claims and updates is not the row section 4 seeds. */
  private async deliveriesTable(rows: number): Promise<SoakResult['deliveriesTable']> {
    const [table] = await this.producer.services.db.query(
      `SELECT pg_relation_size('webhook_deliveries') AS heap, pg_indexes_size('webhook_deliveries') AS indexes,
              n_live_tup AS live, n_dead_tup AS dead, autovacuum_count AS autovacuums
         FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`,
    );
    return {
      heapBytesPerRow: Number(table.heap) / Math.max(1, rows),
      indexBytesPerRow: Number(table.indexes) / Math.max(1, rows),
      liveRows: Number(table.live),
      deadRows: Number(table.dead),
      autovacuums: Number(table.autovacuums),
    };
  }

  private async sharedBuffersMiB(): Promise<number> {
    const [{ bytes }] = await this.producer.services.db.query("SELECT pg_size_bytes(current_setting('shared_buffers')) AS bytes");
    return Number(bytes) / 2 ** 20;
  }

  /** One scheduled event in its own transaction, as a purchase records its own. */
  private async commitEvent(i: number): Promise<void> {
    const { services } = this.producer;
    const purchaseId = newPurchaseId();
    this.awaitingReceipt.set(purchaseId, undefined);
    try {
      const delivery = await services.db.transaction((manager) =>
        services.webhookEvents.recordEvent(manager, {
          type: WebhookEventType.APP_PURCHASED,
          appId: roundRobin(this.appIds, i),
          userId: `usr_soak_${i}`,
          purchaseId,
          amountVnd: 50_000,
          developerShareVnd: 40_000,
        }),
      );
      if (!delivery) throw new Error('an app of the soak has no webhook URL');
      this.deliveryIds.push(delivery.id);
      // Received already (before the commit returned to this producer): counted as 0 ms, as benchmark 2 does.
      if (this.awaitingReceipt.has(purchaseId)) this.awaitingReceipt.set(purchaseId, Date.now());
    } catch (err) {
      this.awaitingReceipt.delete(purchaseId);
      this.producerErrors += 1;
      this.firstProducerError ??= String(err);
    }
  }

  /** A buyer buys the next app they do not own yet through the API process, as the store's Buy button does. */
  private async purchase(i: number): Promise<void> {
    const buyer = this.buyers[Math.floor(i / APPS)];
    try {
      if (!buyer) throw new Error('every buyer owns every app');
      const response = await fetch(`${this.api.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${buyer}` },
        body: JSON.stringify({ query: PURCHASE, variables: { appId: roundRobin(this.appIds, i) } }),
      });
      const json = (await response.json()) as { data?: { purchaseApp?: { purchaseId: string } }; errors?: unknown[] };
      const purchaseId = json.data?.purchaseApp?.purchaseId;
      if (response.status === 200 && !json.errors && purchaseId) this.purchaseIds.push(purchaseId);
      else throw new Error(`status ${response.status}: ${JSON.stringify(json.errors)}`);
    } catch (err) {
      this.refusedPurchases += 1;
      this.firstRefusal ??= String(err);
    }
  }

  /** The Webhook Logs page's list, once a second, one request at a time, with the developer's API token. */
  private async readLog(stopped: () => boolean): Promise<void> {
    const body = JSON.stringify({ query: LOG_QUERY, variables: { first: LOG_PAGE } });
    for (let k = 0; !stopped(); k++) {
      await sleep(this.started + k * 1000 - Date.now());
      if (stopped()) break;
      const startedAt = performance.now();
      try {
        const response = await fetch(`${this.api.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiToken}` },
          body,
        });
        const json = (await response.json()) as { data?: { webhookDeliveries?: { edges: unknown[] } }; errors?: unknown[] };
        if (response.status !== 200 || json.errors || !json.data?.webhookDeliveries) throw new Error(`status ${response.status}`);
        this.readerMs.push(performance.now() - startedAt);
      } catch {
        this.readerErrors += 1;
      }
    }
  }

  /** First receipts since the last call: each scheduled event's commit-to-receipt latency. */
  private async collectReceipts(): Promise<number[]> {
    const latencies: number[] = [];
    for (const [purchaseId, arrivedAt] of await this.receiver.arrivals()) {
      // Not one of the scheduled events: a purchase of the stream, whose commit time this process does not see.
      if (!this.awaitingReceipt.has(purchaseId)) continue;
      const committedAt = this.awaitingReceipt.get(purchaseId);
      latencies.push(committedAt === undefined ? 0 : Math.max(0, arrivedAt - committedAt));
      this.awaitingReceipt.delete(purchaseId);
    }
    const { ids, failedOnce } = await this.receiver.verifiedIds();
    for (const id of ids) this.verified.add(id);
    this.failedOnce = failedOnce;
    return latencies;
  }

  private async counts(): Promise<{ recorded: number; attempts: number; backlog: number; subscribedSettled: number }> {
    const db = this.producer.services.db;
    const byStatus: { status: string; n: number; subscribed: number }[] = await db.query(
      'SELECT status, count(*)::int AS n, (count(*) FILTER (WHERE app_id = $1))::int AS subscribed FROM webhook_deliveries GROUP BY status',
      [this.appIds[0]],
    );
    const [{ attempts }] = await db.query('SELECT count(*)::int AS attempts FROM webhook_attempts');
    const recorded = byStatus.reduce((n, r) => n + r.n, 0);
    const backlog = byStatus.filter((r) => r.status === 'PENDING' || r.status === 'RETRYING').reduce((n, r) => n + r.n, 0);
    const subscribedSettled = byStatus.filter((r) => r.status === 'SUCCEEDED' || r.status === 'FAILED').reduce((n, r) => n + r.subscribed, 0);
    return { recorded, attempts, backlog, subscribedSettled };
  }

  /** Bytes of every webhook table, its indexes, TOAST and partitions included; the log's tables and the rollups apart. */
  private async sizes(): Promise<{ webhookBytes: number; logBytes: number; rollupBytes: number; tableBytes: Record<string, number> }> {
    const tables: { name: string; bytes: string }[] = await this.producer.services.db.query(
      // pg_partition_tree has no rows for a table that is not partitioned: such a table is sized on its own.
      `SELECT c.relname AS name,
              CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_total_relation_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
                   ELSE pg_total_relation_size(c.oid) END AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname LIKE 'webhook\\_%'`,
    );
    const sum = (keep: (name: string) => boolean) => tables.filter((t) => keep(t.name)).reduce((n, t) => n + Number(t.bytes), 0);
    return {
      webhookBytes: sum(() => true),
      logBytes: sum((name) => LOG_TABLES.includes(name)),
      rollupBytes: sum((name) => ROLLUP_TABLE.test(name)),
      tableBytes: Object.fromEntries(tables.map((t) => [t.name, Number(t.bytes)])),
    };
  }

  private async sample(atSeconds: number): Promise<SoakRow> {
    const postgresPids = descendantPids(process.pid).filter((pid) => processName(pid) === 'postgres');
    // PostgreSQL's processes are below this one when it is the embedded one; another (DATABASE_URL) is not measured.
    const memoryMiB: Record<string, number> = { API: residentMiB(this.api.pid), worker: residentMiB(this.worker.pid) };
    if (postgresPids.length) memoryMiB.PostgreSQL = proportionalMiB(postgresPids);
    const latenciesMs = await this.collectReceipts();
    const readerMs = this.readerMs;
    this.readerMs = [];
    const { verified } = await this.receiver.count();
    const own = process.cpuUsage();
    const row: SoakRow = {
      atSeconds,
      memoryMiB,
      latenciesMs,
      readerMs,
      load1: loadavg()[0]!,
      ...(await this.sizes()),
      ...(await this.counts()),
      received: verified,
      subscriberUpdates: this.subscriber.takeUpdates(),
      database: await readDatabase(this.statistics, this.withStatements),
      cpuMs: { api: processCpuMs(this.api.pid), worker: processCpuMs(this.worker.pid), postgres: workProcessesCpuMs().postgres, bench: (own.user + own.system) / 1000 },
    };
    process.stderr.write(
      `soak ${Math.round(atSeconds)} s: API ${memoryMiB.API!.toFixed(0)} MiB, worker ${memoryMiB.worker!.toFixed(0)} MiB, PostgreSQL ${memoryMiB.PostgreSQL?.toFixed(0) ?? 'n/a'} MiB, p99 ${percentile(latenciesMs, 99)} ms of ${latenciesMs.length}, backlog ${row.backlog}, load ${row.load1.toFixed(1)}\n`,
    );
    return row;
  }

  /** (4): every committed event's delivery and every purchase's SUCCEEDED and received, the subscriber hearing in every sample. */
  private async losses(): Promise<LossCounts> {
    const rows: { id: string; purchase_id: string; status: string }[] = await this.producer.services.db.query('SELECT id, purchase_id, status FROM webhook_deliveries');
    const byId = new Map(rows.map((r) => [r.id, r]));
    const byPurchase = new Map(rows.map((r) => [r.purchase_id, r]));
    const counts: LossCounts = {
      committed: this.deliveryIds.length,
      purchasesAnsweredOk: this.purchaseIds.length,
      missing: 0,
      failed: 0,
      unsettled: 0,
      notReceived: 0,
      subscriberSilentWindows: silentSamples(this.rows, this.settings.warmUpSeconds),
      subscriberErrors: this.subscriber.errors(),
    };
    const check = (row: { id: string; status: string } | undefined) => {
      if (!row) counts.missing += 1;
      else if (row.status === 'FAILED') counts.failed += 1;
      else if (row.status !== 'SUCCEEDED') counts.unsettled += 1;
      else if (!this.verified.has(row.id)) counts.notReceived += 1;
    };
    for (const id of this.deliveryIds) check(byId.get(id));
    for (const purchaseId of this.purchaseIds) check(byPurchase.get(purchaseId));
    return counts;
  }
}

/**
 * Starts `run(i)` at `i / ratePerSecond` s, whatever the earlier ones do (an open loop), until `stopped`;
 * with MAX_IN_FLIGHT unfinished it waits for one, and the start's delay past its schedule goes to `lagsMs`.
 */
async function openLoop(ratePerSecond: number, stopped: () => boolean, lagsMs: number[], run: (i: number) => Promise<void>): Promise<void> {
  const started = Date.now();
  let inFlight = 0;
  let slotFreed: (() => void) | undefined;
  let allDone: (() => void) | undefined;
  for (let i = 0; ; i++) {
    const dueAt = started + (i * 1000) / ratePerSecond;
    await sleep(dueAt - Date.now());
    while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => (slotFreed = resolve));
    if (stopped()) break;
    lagsMs.push(Date.now() - dueAt);
    inFlight += 1;
    // run() settles its own errors; a count and a callback, so a waiting producer costs nothing per run in flight.
    void run(i).finally(() => {
      inFlight -= 1;
      slotFreed?.();
      if (inFlight === 0) allDone?.();
    });
  }
  if (inFlight > 0) await new Promise<void>((resolve) => (allDone = resolve));
}

/** `APPS` approved paid apps (1 point) of the bench developer, each with `webhookUrl`; their ids and signing secrets. */
async function createPaidApps(plaza: RunningPlaza, webhookUrl: string): Promise<{ appIds: string[]; secretsByAppId: Record<string, string> }> {
  const { services } = plaza;
  const developer = await principal(plaza, DEVELOPER_EMAIL, [Role.DEVELOPER, Role.USER]);
  const reviewer = await principal(plaza, 'soak-reviewer@plaza.test', [Role.REVIEWER, Role.USER]);
  const appIds: string[] = [];
  const secretsByAppId: Record<string, string> = {};
  for (let i = 0; i < APPS; i++) {
    const app = await services.apps.submit(developer, {
      name: `Soak ${i}`,
      shortDescription: 'soak benchmark app',
      iconUrl: 'https://bench.example/icon.png',
      appUrl: 'https://bench.example/',
      category: 'utilities',
      pricing: Pricing.PAID,
      pricePoints: 1,
      webhookUrl,
    });
    await services.review.decide(reviewer, { appId: app.id, outcome: ReviewOutcome.APPROVED });
    appIds.push(app.id);
    secretsByAppId[app.id] = await services.secrets.signingSecret(app.id);
  }
  return { appIds, secretsByAppId };
}

/** `count` buyers, each with a point for every app; their session tokens. */
async function createBuyers(plaza: RunningPlaza, count: number): Promise<string[]> {
  const { services } = plaza;
  const admin = await principal(plaza, 'soak-admin@plaza.test', [Role.ADMIN, Role.USER]);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = `soak-buyer-${i}@plaza.test`;
    const { token, account } = await services.identity.signIn({ id: devUserId(email), email, provider: 'dev' });
    await services.marketplace.creditPoints(admin, account.id, APPS, 'soak benchmark');
    tokens.push(token);
  }
  return tokens;
}

async function principal(plaza: RunningPlaza, email: string, roles: Role[]): Promise<Principal> {
  const { account } = await plaza.services.identity.signIn({ id: devUserId(email), email, provider: 'dev' });
  return { kind: 'session', userId: account.id, email: account.email, roles: new Set(roles), sessionId: 'soak' };
}

interface Subscriber {
  /** Updates received since the last call. */
  takeUpdates(): number;
  /** Subscription errors and connections closed. */
  errors(): number;
  close(): Promise<void>;
}

/** One graphql-ws subscriber to an app's delivery updates on the API process, as the Webhook Logs page keeps open. */
async function startSubscriber(apiUrl: string, token: string, appId: string): Promise<Subscriber> {
  let updates = 0;
  let errors = 0;
  let open = true;
  const client: Client = createClient({
    url: `${apiUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const connected = new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', () => {
      if (open) errors += 1;
      reject(new Error('the subscriber could not connect'));
    });
  });
  client.subscribe({ query: SUBSCRIPTION, variables: { appId } }, { next: () => void (updates += 1), error: () => void (errors += 1), complete: () => undefined });
  await connected;
  return {
    takeUpdates: () => {
      const taken = updates;
      updates = 0;
      return taken;
    },
    errors: () => errors,
    close: async () => {
      open = false;
      await client.dispose();
    },
  };
}

/** The command name of a process (/proc/<pid>/stat), '' when it is gone. */
function processName(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return '';
  }
}

/** CPU time (user + system) a process has used so far, ms (/proc counts 10 ms clock ticks); 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : 'n/a');
const percent = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)}%`;
const MAX_ROWS_SHOWN = 16;

/** Section 10 of BENCHMARKS.md. */
export function soakReport(r: SoakResult): string {
  // A long run's samples, evenly thinned to at most MAX_ROWS_SHOWN, the first and last always among them.
  const step = Math.max(1, Math.ceil(r.rows.length / MAX_ROWS_SHOWN));
  const shown = r.rows.filter((_, i) => i % step === 0 || i === r.rows.length - 1);
  const kept = r.ratePerSecond * 0.95 <= r.recordedPerSecond && r.backlogAtEnd <= r.ratePerSecond * 5;
  const l = r.losses;
  const lost = nothingLost(l);
  const windowText = `${r.windowSeconds >= 60 ? `${+(r.windowSeconds / 60).toFixed(1)} min` : `${Math.round(r.windowSeconds)} s`}`;
  return `## 10. Soak (${+r.minutes.toFixed(2)} min at ${fmt(r.ratePerSecond)} deliveries/s: a subscriber, a Webhook Logs reader and ${r.purchasesPerSecond} purchases/s)

Plaza as deployed, each its own process with NODE_ENV=production: the API (\`node server/dist/main.js\`, RUN_WORKER=false)
and a worker (\`node server/dist/worker.js\`) on the embedded PostgreSQL (fsync on). Open loop: this process commits
events on schedule to ${APPS} apps through \`recordEvent\`, one transaction each, at ${fmt(r.ratePerSecond - r.purchasesPerSecond)}/s, and buyers
buy those apps through the API's \`purchaseApp\` at ${r.purchasesPerSecond}/s (counted in the rate); one graphql-ws subscriber listens
to one app's \`webhookDeliveryUpdated\`, and a Webhook Logs reader asks \`webhookDeliveries(first: ${LOG_PAGE})\` with an API token
once a second. The receiver verifies every signature and answers 200, except the first attempt of every ${FAIL_EVERY}th delivery,
answered 500 (${fmt(r.failedOnce)} deliveries): their retries (WEBHOOK_RETRY_SCHEDULE ${r.retrySchedule}) are part of the load.
Warm-up ${r.warmUpSeconds} s, not counted; samples every ${+r.sampleSeconds.toFixed(1)} s; the verdicts compare the first ${windowText} after
warm-up with the last ${windowText}. Load average ${r.loadAverage.start.map((x) => x.toFixed(1)).join(', ')} at the start, ${r.loadAverage.end.map((x) => x.toFixed(1)).join(', ')} at the end.

| t | Load (1 min) | API RSS | Worker RSS | PostgreSQL Pss | Deliveries received: p50 / p99 (count) | Logs reader p99 | Webhook tables (log's) | Recorded / received | Backlog | Subscriber updates |
|---|---|---|---|---|---|---|---|---|---|---|
${shown
  .map(
    (s) =>
      `| ${Math.round(s.atSeconds)} s${s.atSeconds <= r.warmUpSeconds + 1e-6 ? ' (warm-up)' : ''} | ${s.load1.toFixed(1)} | ${s.memoryMiB.API!.toFixed(0)} MiB | ${s.memoryMiB.worker!.toFixed(0)} MiB | ${s.memoryMiB.PostgreSQL?.toFixed(0) ?? 'n/a'} MiB | ${ms(percentile(s.latenciesMs, 50))} / ${ms(percentile(s.latenciesMs, 99))} (${fmt(s.latenciesMs.length)}) | ${ms(percentile(s.readerMs, 99))} | ${mib(s.webhookBytes)} MiB (${mib(s.logBytes)}) | ${fmt(s.recorded)} / ${fmt(s.received)} | ${fmt(s.backlog)} | ${fmt(s.subscriberUpdates)} |`,
  )
  .join('\n')}
${shown.length < r.rows.length ? `\n${shown.length} of ${r.rows.length} samples shown, evenly spaced; latencies and updates are those since the previous sample (of all samples).\n` : ''}
| Verdict | First ${windowText} after warm-up | Last ${windowText} | Target |
|---|---|---|---|
${r.memory.map((m) => `| (1) ${m.name} memory (${m.name === 'PostgreSQL' ? 'Pss, postmaster and children' : 'VmRSS'}), median | ${m.firstMiB.toFixed(1)} MiB | ${m.lastMiB.toFixed(1)} MiB (${percent(m.change)}) | within ${MEMORY_TOLERANCE * 100}%: ${verdict(m.met)} |`).join('\n')}
| (2) Commit to receipt, p99 of the deliveries received | ${ms(r.latency.firstP99Ms)} (${fmt(r.latency.firstCount)}) | ${ms(r.latency.lastP99Ms)} (${fmt(r.latency.lastCount)}) | <= ${P99_TOLERANCE}x or +${P99_SLACK_MS} ms: ${verdict(r.latency.met)} |
| Webhook Logs reader, p99 (${fmt(r.reader.requests)} requests, ${r.reader.errors} errors) | ${ms(r.reader.firstP99Ms)} | ${ms(r.reader.lastP99Ms)} | (reported) |
| (3) Storage: log tables' growth per delivery (${fmt(r.storage.deliveries)} deliveries, ${r.storage.attemptsPerDelivery.toFixed(2)} attempts each) | predicted ${fmt(r.storage.predictedBytesPerDelivery)} bytes (section 4: ${fmt(r.storage.statedBytesPerDelivery)} at 3 attempts) | **${fmt(r.storage.bytesPerDelivery)} bytes** (${r.storage.ratioToPredicted.toFixed(2)}x predicted, ${r.storage.ratioToStated.toFixed(2)}x section 4's) | within ${STORAGE_TOLERANCE * 100}%: ${verdict(r.storage.met)} |
| (4) Nothing lost: ${fmt(l.committed)} events committed, ${fmt(l.purchasesAnsweredOk)} purchases answered OK | | missing ${l.missing}, FAILED ${l.failed}, unsettled ${l.unsettled}, SUCCEEDED but never received ${l.notReceived}; subscriber silent in ${l.subscriberSilentWindows} samples, ${l.subscriberErrors} errors (${fmt(r.subscriber.updates)} updates for ${fmt(r.subscriber.settled)} of its app's deliveries settled) | 0: ${verdict(lost)} |

What the database did in the same windows (pg_stat_statements for the claim and the result write, the two statements
on every delivery's path; pg_stat_checkpointer, pg_stat_bgwriter, pg_stat_io and pg_stat_wal; sizes and pg_stat_user_tables,
webhook_attempts summed over its partitions):

${databaseWindowsTable(r.rows, r.windows)}
Rate: ${fmt(r.recordedPerSecond)} deliveries recorded/s and ${fmt(r.settledPerSecond)} settled/s after warm-up (asked ${fmt(r.ratePerSecond)}/s); the producers
started p50 ${ms(r.producer.lagP50Ms)}, p99 ${ms(r.producer.lagP99Ms)} (max ${ms(r.producer.lagMaxMs)}) behind their schedule; the backlog (PENDING or RETRYING) was ${fmt(r.maxBacklog)} at
most and ${fmt(r.backlogAtEnd)} when the load stopped, ${r.drained ? `drained ${r.drainSeconds.toFixed(1)} s later` : `NOT drained ${r.drainSeconds.toFixed(0)} s later`}.${kept ? '' : ` **The machine did not keep up with ${fmt(r.ratePerSecond)}/s**: the figures are for the rate it reached.`}
${r.producer.errors ? `Producer errors: ${r.producer.errors} (first: ${r.producer.firstError}). ` : ''}${r.purchases.refused ? `Purchases refused: ${r.purchases.refused} (first: ${r.purchases.firstRefusal}). ` : ''}
CPU per delivery after warm-up: API ${r.cpuMsPerDelivery.api.toFixed(3)} ms, worker ${r.cpuMsPerDelivery.worker.toFixed(3)} ms, PostgreSQL ${r.cpuMsPerDelivery.postgres.toFixed(3)} ms;
this process (producers, clients, the receiver's thread) ${r.cpuMsPerDelivery.bench.toFixed(3)} ms.
Storage per delivery by table, here / section 4: ${r.tableBytesPerDelivery.map((t) => `${t.table} ${fmt(t.measured)} / ${fmt(t.section4)}`).join(', ')}; the rollup tables ${fmt(r.rollupBytesPerDelivery)}.
webhook_deliveries at the end: ${fmt(r.deliveriesTable.heapBytesPerRow)} bytes of heap and ${fmt(r.deliveriesTable.indexBytesPerRow)} of indexes per row (every row since the start), ${fmt(r.deliveriesTable.deadRows)} dead rows beside ${fmt(r.deliveriesTable.liveRows)} live (statistics' estimate), autovacuumed ${r.deliveriesTable.autovacuums} times.

Memory is each process's VmRSS, PostgreSQL's the sum of Pss over the postmaster and its children (RSS would
count the shared buffers once per backend); that sum includes the shared buffers the processes have touched, so it
grows with the data read and written until shared_buffers (${fmt(r.sharedBuffersMiB)} MiB here) are all in use.${
    Object.keys(r.postgresSettings).length
      ? ` PostgreSQL's settings asked beside its defaults (SOAK_POSTGRES_SETTINGS): ${Object.entries(r.postgresSettings)
          .map(([name, value]) => `${name}=${value}`)
          .join(', ')}.`
      : ''
  } Latency is the commit of a scheduled event returning to the first byte
of its first attempt at the receiver (0 when it arrives first); the purchases' deliveries are checked for loss but
not timed (this process does not see their commit). Storage is \`pg_total_relation_size\` over section 4's tables
(webhook_events, webhook_deliveries, webhook_attempts, webhook_request_headers) and their partitions, from the end of
warm-up to the drained end, per delivery recorded between; section 4 seeds three attempts a delivery, so the prediction
counts its ${SECTION_4_ATTEMPT_BYTES} bytes of attempts a third for each attempt made here.
`;
}
