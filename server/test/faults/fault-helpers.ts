import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, vi } from 'vitest';
import { connectPlazaDatabase } from '../../src/app/entities.js';
import { WebhookEventsService } from '../../src/modules/webhooks/webhook-events.service.js';
import { WebhookEventType } from '../../src/modules/webhooks/webhook.types.js';
import { newPurchaseId } from '../../src/platform/ids.js';
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';
import { TEST_ENCRYPTION_KEY } from '../helpers/plaza.js';
import { startPlazaProcess, type PlazaProcess, type StartOptions } from '../helpers/process.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { ALL_ATTEMPTS } from '../helpers/webhooks.js';

export const WORKER_READY = /delivery worker started/;
/** Debian's libfaketime (`apt-get install -y faketime`; .ci/run does), preloaded to shift a process's wall clock. */
export const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
/** libfaketime with the wall clock shifted by `offset`; monotonic time untouched, so timers run as ever. */
export const fakeClock = (offset: string) => ({ LD_PRELOAD: LIBFAKETIME, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' });
export const LIVE_DELIVERIES = 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status attemptCount } }';
export const SEND_TEST = 'mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }';

/** What every Plaza process of a fault test shares: one database, one key, receivers on loopback. */
const sharedEnv = (databaseUrl: string, env: Record<string, string>) => ({
  DATABASE_URL: databaseUrl,
  SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  PLATFORM_REVIEWER_EMAILS: 'reviewer@plaza.test',
  WEB_DIST_DIR: '/nonexistent',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  ...env,
});

/** `pnpm start` with RUN_WORKER=false: an API process that delivers nothing itself. */
export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}, options?: StartOptions): Promise<PlazaProcess> {
  return startPlazaProcess(sharedEnv(databaseUrl, { RUN_WORKER: 'false', PORT: String(await findFreePort()), ...env }), 'main.js', undefined, options);
}

/** `pnpm worker`: ready once it logs that its job worker started. */
export function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}, options?: StartOptions): Promise<PlazaProcess> {
  return startPlazaProcess(sharedEnv(databaseUrl, env), 'worker.js', WORKER_READY, options);
}

/** Polls `check` (vi.waitFor) until it returns a value other than undefined/false; fails with `what` after `timeoutMs`. */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  let lastError: unknown;
  return vi.waitFor(
    async () => {
      let value: T | undefined | false;
      try {
        value = await check();
      } catch (err) {
        lastError = err;
      }
      if (value === undefined || value === false) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `; last error: ${String(lastError)}` : ''}`);
      return value;
    },
    { timeout: timeoutMs, interval: everyMs },
  );
}

/** How many requests the receiver got for each delivery id (the X-Platform-Delivery header). */
export function requestsPerDelivery(receiver: WebhookReceiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = String(request.headers['x-platform-delivery']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * After a worker stopped without writing an attempt's result: another worker (on `databaseUrl`, with `env`) makes the
 * attempt again once the stopped one's claim has run out, and the delivery's record says so, its first attempt
 * closed as interrupted and its second as it went. The second worker is stopped cleanly at the end.
 */
export async function expectMadeAgainByAnotherWorker(
  databaseUrl: string,
  env: Record<string, string>,
  db: pg.Pool,
  deliveryId: string,
  receiver: WebhookReceiver,
  cleanup: (stop: () => Promise<unknown>) => void,
): Promise<void> {
  const second = await startWorkerProcess(databaseUrl, env);
  cleanup(() => second.stop('SIGKILL'));
  await waitUntil(
    'the delivery to succeed through another worker',
    async () => (await db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0]?.status === 'SUCCEEDED',
    45_000,
    200,
  );
  expect(requestsPerDelivery(receiver).get(deliveryId)).toBe(2);
  const { rows: attempts } = await db.query<{ number: number; finished: boolean; status_code: number | null; error: string | null }>(
    `SELECT number, finished, status_code, error FROM ${ALL_ATTEMPTS} a WHERE delivery_id = $1 ORDER BY number`,
    [deliveryId],
  );
  // The first attempt's answer never reached the database: it is recorded as interrupted, the second as it went.
  expect(attempts).toEqual([
    { number: 1, finished: true, status_code: null, error: expect.stringMatching(/^interrupted/) },
    { number: 2, finished: true, status_code: 200, error: null },
  ]);
  expect(await second.stop('SIGTERM'), second.output()).toBe(0);
}

/** A plain client on the test's database, for reading deliveries and attempts as they are stored. */
export async function openDatabase(databaseUrl: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A fault test may stop PostgreSQL under this pool; an idle client's error must not crash the test process.
  pool.on('error', () => undefined);
  return pool;
}

export async function countByStatus(db: pg.Pool, appId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1 GROUP BY status', [appId]);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Resolves once the API process at `url` holds `count` live subscriptions (its /metrics gauge says so). */
export function waitForSubscriptionsOn(url: string, count: number): Promise<number> {
  return waitUntil(
    `${count} live subscriptions on ${url}`,
    async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const live = Number(/^plaza_graphql_subscriptions (\d+)/m.exec(text)?.[1] ?? 0);
      return live >= count ? live : undefined;
    },
    10_000,
  );
}

/**
 * Commits purchases' app.purchased events for `appId` from this test process (a process apart from Plaza's), each in
 * its own transaction as the marketplace commits them: retried on the schedule, which test events are not.
 * `purchase()` records one and resolves to its delivery; `close()` ends the connection.
 */
export async function purchaseEventProducer(databaseUrl: string, appId: string, userId: string) {
  const producer = await connectPlazaDatabase(databaseUrl, 10);
  const events = new WebhookEventsService(producer);
  const purchase = () =>
    producer.transaction((manager) =>
      events.recordEvent(manager, { type: WebhookEventType.APP_PURCHASED, appId, userId, purchaseId: newPurchaseId(), amountVnd: 50_000, developerShareVnd: 40_000 }),
    );
  return { purchase, close: () => producer.destroy() };
}

const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';

/** What a buying client saw of one purchase: when it asked, how long it waited, and the answer (or the error). */
export type PurchaseOutcome = {
  startedAt: number;
  ms: number;
  status: number;
  purchaseId?: string;
  code?: string;
  message?: string;
  retryAfter?: string | null;
  error?: string;
};

/** A purchase over real HTTP, timed, with what the client sees (status, code, Retry-After); never throws. */
export async function timedPurchase(baseUrl: string, token: string, appId: string): Promise<PurchaseOutcome> {
  const startedAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: BUY, variables: { appId } }),
      // Far past any bound a fault test asserts: a request still unanswered here is a hang, recorded as one.
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await response.json()) as { data?: { purchaseApp?: { purchaseId: string } } | null; errors?: { message?: string; extensions?: { code?: string } }[] };
    return {
      startedAt,
      ms: Date.now() - startedAt,
      status: response.status,
      purchaseId: body.data?.purchaseApp?.purchaseId,
      code: body.errors?.[0]?.extensions?.code,
      message: body.errors?.[0]?.message,
      retryAfter: response.headers.get('retry-after'),
    };
  } catch (err) {
    return { startedAt, ms: Date.now() - startedAt, status: 0, error: String(err) };
  }
}

/** Any server Plaza's database can be read on after a fault (the new primary, the refilled disk's server). */
type PlazaDatabaseReader = { query<T extends pg.QueryResultRow>(sql: string, params: unknown[], database: string): Promise<T[]> };

/**
 * Nothing acknowledged is lost: every purchase whose mutation answered with its id is stored, its
 * app.purchased delivery ends SUCCEEDED, and the receiver got it. The one check every fault test makes.
 */
export async function expectAcknowledgedPurchasesDelivered(database: PlazaDatabaseReader, acknowledgedIds: string[], receiver: WebhookReceiver): Promise<void> {
  const stored = await database.query<{ purchase_id: string }>('SELECT purchase_id FROM purchases WHERE purchase_id = ANY($1)', [acknowledgedIds], 'plaza');
  const storedIds = new Set(stored.map((row) => row.purchase_id));
  expect(
    acknowledgedIds.filter((id) => !storedIds.has(id)),
    'acknowledged but not stored',
  ).toEqual([]);
  await expect
    .poll(
      async () =>
        (
          await database.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM webhook_deliveries WHERE purchase_id = ANY($1) AND event_type = 'app.purchased' AND status = 'SUCCEEDED'",
            [acknowledgedIds],
            'plaza',
          )
        )[0]!.n,
      { timeout: 60_000, interval: 200 },
    )
    .toBe(acknowledgedIds.length);
  const received = new Set(receiver.requests.map((request) => JSON.parse(request.rawBody.toString()).purchase_id as string));
  expect(
    acknowledgedIds.filter((id) => !received.has(id)),
    'acknowledged but never received',
  ).toEqual([]);
}

/**
 * A test file's own PostgreSQL, which its test stops and starts again (on the same data and port) without
 * touching the run's shared one. In /tmp, where the postgres user can reach the data directory. After the
 * file, each registered cleanup runs (processes, connections; newest first, each even when one before it
 * failed, since a failure there would only hide the test's own result), then the database stops and its
 * directory goes.
 */
export function restartablePostgres(name: string) {
  const dir = mkdtempSync(path.join(tmpdir(), `plaza-pg-${name}-`));
  chmodSync(dir, 0o755);
  const databaseDir = path.join(dir, 'pg');
  let database: EmbeddedDatabase | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await database?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** Runs after the file, before the database stops. */
    cleanup: (step: () => Promise<unknown>) => void cleanups.push(step),
    /** Starts it (again, on the same data) on `port`. */
    start: async (port: number): Promise<EmbeddedDatabase> => (database = await startEmbeddedPostgres({ databaseDir, fsync: false, port })),
    stop: async (): Promise<void> => database?.stop(),
  };
}
