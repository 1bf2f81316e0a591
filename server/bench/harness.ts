import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../config.js';
import { findFreePort, startEmbeddedPostgres } from '../platform/embedded-postgres.js';
import { startPlaza, type RunningPlaza } from '../app/plaza.js';
import { devUserId } from '../modules/identity/identity.service.js';
import { Role } from '../platform/auth/roles.js';
import type { Principal } from '../platform/auth/principal.js';
import { Pricing } from '../modules/apps/app.types.js';
import { newPurchaseId } from '../platform/ids.js';
import type { WebhookDelivery } from '../modules/webhooks/webhook-delivery.entity.js';
import { WebhookEventType } from '../modules/webhooks/webhook.types.js';

export interface BenchContext {
  databaseUrl: string;
  /** The embedded cluster's superuser on the same database (none for DATABASE_URL): for statistics Plaza's role may not reset. */
  superuserUrl?: string;
  close(): Promise<void>;
}

/** A real PostgreSQL with fsync on (benchmarks measure what production would pay), or DATABASE_URL. */
export async function startBenchDatabase(settings?: Record<string, string>): Promise<BenchContext> {
  if (process.env.DATABASE_URL) return { databaseUrl: process.env.DATABASE_URL, close: async () => undefined };
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-bench-'));
  chmodSync(dir, 0o755);
  const database = await startEmbeddedPostgres({ databaseDir: path.join(dir, 'pg'), fsync: true, settings });
  return {
    databaseUrl: database.url,
    superuserUrl: database.superuserUrl(),
    close: async () => {
      await database.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const benchKey = Buffer.alloc(32, 9).toString('base64');

/**
 * Rate limits a benchmark's one load generator cannot reach: the limiter still runs on every request
 * (its cost is in the figures), it just never refuses one.
 */
export const BENCH_RATE_LIMITS = { RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_API_TOKEN: '1000000000', RATE_LIMIT_PER_ACCOUNT: '1000000000' };

/** A Plaza on the bench database: API plus worker in one process, like `pnpm start`. */
export async function startBenchPlaza(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningPlaza> {
  const port = await findFreePort();
  return startPlaza(
    loadConfig({ DATABASE_URL: databaseUrl, PORT: String(port), SECRET_ENCRYPTION_KEY: benchKey, WEB_DIST_DIR: '/nonexistent', LOG_LEVEL: 'warn', ...BENCH_RATE_LIMITS, ...env }),
  );
}

/** `count` approved free apps of one developer, all with `webhookUrl`; returns their ids and client secrets. */
export async function createApps(plaza: RunningPlaza, count: number, webhookUrl: string): Promise<{ appIds: string[]; secretsByAppId: Record<string, string> }> {
  const { services } = plaza;
  const { account } = await services.identity.signIn({ id: devUserId('bench@plaza.test'), email: 'bench@plaza.test', provider: 'dev' });
  const developer: Principal = { kind: 'session', userId: account.id, email: account.email, roles: new Set([Role.DEVELOPER, Role.USER]), sessionId: 'bench' };
  const appIds: string[] = [];
  const secretsByAppId: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const app = await services.apps.submit(developer, {
      name: `Bench ${i}`,
      shortDescription: 'benchmark app',
      iconUrl: 'https://bench.example/icon.png',
      appUrl: 'https://bench.example/',
      category: 'utilities',
      pricing: Pricing.FREE,
      pricePoints: null,
      webhookUrl,
    });
    appIds.push(app.id);
    secretsByAppId[app.id] = await services.secrets.signingSecret(app.id);
  }
  return { appIds, secretsByAppId };
}

/** Producers committing in parallel, like concurrent purchases. */
export const COMMIT_CONCURRENCY = 16;

/**
 * Events per transaction when a benchmark measures the delivery engine rather than the producers'
 * commits: with fsync on, 20,000 single-event commits alone take PostgreSQL longer than the engine
 * needs to deliver them, so they would hide what the engine can do.
 */
export const BATCHED_EVENTS_PER_TRANSACTION = 100;

/** Deliveries made and not timed before each throughput run: a tenth of the run, at most 2,000. */
export const warmUpEvents = (events: number) => Math.min(2_000, Math.ceil(events / 10));

/**
 * Commits `events` purchase events through the entry point purchases use (`recordEvent`, or for several
 * to a transaction the `insert` it is made of), spread over the apps, `eventsPerTransaction` to a
 * transaction (1 = one transaction each, like single purchases);
 * `afterCommit` runs with each recorded delivery once its transaction has committed.
 */
export async function commitEvents(
  plaza: RunningPlaza,
  appIds: string[],
  events: number,
  options: {
    eventsPerTransaction?: number;
    afterCommit?: (delivery: WebhookDelivery) => Promise<unknown>;
    /** With all of a transaction's deliveries once it has committed (a queue's bulk insert takes them in one statement). */
    afterTransaction?: (deliveries: WebhookDelivery[]) => Promise<unknown>;
  } = {},
): Promise<void> {
  const { services } = plaza;
  const perTransaction = options.eventsPerTransaction ?? 1;
  let next = 0;
  await Promise.all(
    Array.from({ length: COMMIT_CONCURRENCY }, async () => {
      while (next < events) {
        const first = next;
        next = Math.min(events, next + perTransaction);
        const last = next;
        const facts = Array.from({ length: last - first }, (_, k) => {
          const i = first + k;
          return {
            type: WebhookEventType.APP_PURCHASED,
            appId: roundRobin(appIds, i),
            userId: `usr_${i}`,
            purchaseId: newPurchaseId(),
            amountVnd: 50_000,
            developerShareVnd: 40_000,
          };
        });
        // One event: recordEvent, as a purchase records its own. Several: the same statement with all of
        // them (recordEvent is insert of one), as a bulk producer would, so the run measures the engine
        // rather than thousands of producer round trips sharing its event loop.
        const recorded = await services.db.transaction(async (manager) =>
          facts.length === 1 ? [await services.webhookEvents.recordEvent(manager, facts[0]!)].filter((d) => d !== null) : services.webhookEvents.insert(manager, facts),
        );
        if (recorded.length !== facts.length) throw new Error('an app of the benchmark has no webhook URL');
        for (const delivery of recorded) await options.afterCommit?.(delivery);
        await options.afterTransaction?.(recorded);
      }
    }),
  );
}

/** Waits until no delivery is in one of `statuses` (the last results are written). */
export async function waitUntilNone(plaza: RunningPlaza, statuses: string[], timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const [{ open }] = await plaza.services.db.query('SELECT count(*)::int AS open FROM webhook_deliveries WHERE status = ANY($1::text[])', [statuses]);
    if (open === 0) return;
  }
  throw new Error(`deliveries still ${statuses.join('/')} after ${timeoutMs} ms`);
}

export interface Receiver {
  url: string;
  port: number;
  /** verified = answered 200; requests = every signed request, refused ones included. */
  count(): Promise<{ verified: number; rejected: number; requests: number }>;
  /** [purchase_id, arrival ms] of each delivery's first request. */
  arrivals(): Promise<[string, number][]>;
  /** Ids of the deliveries answered 200 since the last call (with `recordVerified`; one entry per 200), and how many deliveries `failEvery` refused once so far. */
  verifiedIds(): Promise<{ ids: string[]; failedOnce: number }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  secretsByAppId: Record<string, string>,
  options: { port?: number; recordArrivals?: boolean; failFirst?: number; failEvery?: number; recordVerified?: boolean } = {},
): Promise<Receiver> {
  const worker = new Worker(path.join(path.dirname(fileURLToPath(import.meta.url)), 'receiver-thread.js'), { workerData: { secretsByAppId, ...options } });
  const next = <T>() => new Promise<T>((resolve) => worker.once('message', resolve));
  const { port } = await next<{ port: number }>();
  const ask = async <T>(type: string) => {
    const reply = next<T>();
    worker.postMessage({ type });
    return reply;
  };
  return {
    url: `http://127.0.0.1:${port}/bench/webhook`,
    port,
    count: () => ask('count'),
    arrivals: async () => (await ask<{ arrivals: [string, number][] }>('arrivals')).arrivals,
    verifiedIds: () => ask('verified-ids'),
    reset: async () => void (await ask('reset')),
    close: async () => void (await worker.terminate()),
  };
}

/** Polls until the receiver has verified `expected` requests; returns the time that happened. */
export async function waitForVerified(receiver: Receiver, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { verified, rejected } = await receiver.count();
    if (rejected > 0) throw new Error(`${rejected} webhook requests failed signature verification`);
    if (verified >= expected) return performance.now();
    if (Date.now() > deadline) throw new Error(`only ${verified} of ${expected} deliveries verified within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const machine = () => `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;

// Of no values (every message lost), NaN: the report shows the gap and still counts the losses.
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** The apps take turns: the i-th event goes to this one. */
export function roundRobin<T>(items: readonly T[], i: number): T {
  const item = items[i % items.length];
  if (item === undefined) throw new Error('roundRobin needs at least one item');
  return item;
}
