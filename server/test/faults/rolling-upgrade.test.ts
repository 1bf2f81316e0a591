import { decodeEncryptionKey } from '../../src/config.js';
import { MIGRATIONS } from '../../src/platform/migrations/index.js';
import { sealSecret } from '../../src/platform/secret-crypto.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, migratedDataSource, migrationIndex } from '../helpers/database.js';
import { TEST_ENCRYPTION_KEY } from '../helpers/plaza.js';
import type { PlazaProcess } from '../helpers/process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { openDatabase, purchaseEventProducer, startApiProcess, startWorkerProcess, waitUntil } from './fault-helpers.js';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../../src/config.js';
import { buildPreviousRelease, PREVIOUS_RELEASE, startPreviousProducer, type PreviousRelease } from './previous-release.js';

// Issue 29, section 2: an upgrade never stops deliveries. The previous release (before endpoints) runs a worker and
// records purchases at a steady rate on a large history; this release's API starts beside it and runs the endpoints
// migrations (expand with a trigger, a batched backfill, an index built concurrently); then this release's worker
// joins and the old one is stopped. Nothing committed is lost or sent twice, and no write waits a second for a lock.

/** The history the migrations walk. `pnpm test` runs 200,000; ROLLING_UPGRADE_DELIVERIES=1000000 for the figures in the README. */
const HISTORY = Number(process.env.ROLLING_UPGRADE_DELIVERIES ?? 200_000);
const PER_SECOND = 20;
/** What the issue allows any write to wait for a migration's lock. */
const MOST_WAIT_MS = 1000;
const APP = 'app_01KROLLINGUPGRADE0000000A';
const ENDPOINT = `ep_${APP.slice('app_'.length)}`;
const WORKER_ENV = { WEBHOOK_RETRY_SCHEDULE: Array<string>(10).fill('300ms').join(), WEBHOOK_TIMEOUT: '5s', WEBHOOK_CLAIM_LEASE: '20s' };

/** How the slow reader's sessions are named, so the lock sampler leaves its own waits out. */
const SLOW_READER = 'plaza-test-slow-reader';
/**
 * The slow reader holds its lock this long in each transaction, then lets go for SLOW_READER_GAP_MS: three times the
 * second a write may be held, so that an ALTER that waits a second for its lock at all often waits it whole.
 */
const SLOW_READ_MS = 3000;
const SLOW_READER_GAP_MS = 300;

/**
 * A slow reader of the deliveries while the migrations run, as an integrator's export or an analyst's query is: each
 * of its transactions holds webhook_deliveries' ACCESS SHARE lock for SLOW_READ_MS. A schema change's ALTER must wait
 * for it, and every write to the table queues behind the waiting ALTER: a migration that waited a whole second for
 * its lock (as short-locks.ts did before it waited 200 ms) held new events that long behind this reader.
 */
async function startSlowReader(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: SLOW_READER });
  await client.connect();
  let running = true;
  let reads = 0;
  const reading = (async () => {
    while (running) {
      await client.query('BEGIN');
      await client.query('SELECT count(*) FROM (SELECT id FROM webhook_deliveries LIMIT 1000) page');
      await client.query('SELECT pg_sleep($1)', [SLOW_READ_MS / 1000]);
      await client.query('COMMIT');
      reads++;
      await sleep(SLOW_READER_GAP_MS);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await reading;
      await client.end();
      return reads;
    },
  };
}

/**
 * Samples every backend of the database waiting on a lock (pg_stat_activity, every 50 ms) and keeps, per statement,
 * the longest wait seen: the result writes and claims of the old worker, the inserts of the producer. The
 * migration's own DDL waiting for its lock (at most 200 ms, then it tries again) and the schema lock's advisory
 * wait of a process starting are not writes held up.
 */
async function startLockSampler(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const longest = new Map<string, { ms: number; query: string }>();
  let running = true;
  const sampling = (async () => {
    while (running) {
      const { rows } = await client.query<{ key: string; ms: number; query: string }>(
        `SELECT pid || '/' || query_start AS key, extract(epoch FROM clock_timestamp() - query_start) * 1000 AS ms, left(query, 120) AS query
           FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event <> 'advisory' AND pid <> pg_backend_pid() AND application_name <> $1
            AND query !~* '^\\s*(ALTER|CREATE|DROP)\\s'`,
        [SLOW_READER],
      );
      for (const row of rows) if ((longest.get(row.key)?.ms ?? 0) < row.ms) longest.set(row.key, { ms: Math.round(row.ms), query: row.query });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await sampling;
      await client.end();
      return [...longest.values()].sort((a, b) => b.ms - a.ms);
    },
  };
}

/**
 * The previous release comes from this repository's own history. A clone made without it (git clone --depth 1)
 * cannot build it: the test then says so on stderr and is skipped, rather than failing every run of such a CI.
 */
const hasPreviousRelease = () => spawnSync('git', ['-C', REPO_ROOT, 'cat-file', '-e', `${PREVIOUS_RELEASE}^{commit}`]).status === 0;
if (!hasPreviousRelease()) spawnSync('git', ['-C', REPO_ROOT, 'fetch', '--quiet', '--depth=100', 'origin', 'main'], { timeout: 60_000 });
const previousReleaseInHistory = hasPreviousRelease();
if (!previousReleaseInHistory)
  console.error(`rolling-upgrade: SKIPPED, the previous release ${PREVIOUS_RELEASE} is not in this clone's history (a shallow clone?) and could not be fetched`);

describe.skipIf(!previousReleaseInHistory)('a rolling upgrade on a large history', () => {
  let previous: PreviousRelease | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    previous = await buildPreviousRelease();
    console.log(JSON.stringify({ measured: { previousReleaseBuiltInSeconds: previous.builtInSeconds } }));
  }, 300_000);
  afterAll(async () => {
    // Each cleanup runs even when one before it fails: a failure here would only hide the test's own result.
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await previous?.remove();
  });

  it('keeps the previous release delivering while this one migrates and starts; every purchase is delivered once per attempt, no write waits a second', async () => {
    const url = await createTestDatabase();
    const receiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok' }));

    // The previous release's schema and a history as it recorded it: one app with a Webhook URL, HISTORY settled deliveries.
    const old = await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex('WebhookEndpoints1796000028000')));
    try {
      await old.query(
        `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, webhook_events, webhook_state, status, submitted_at, review_due_at)
         VALUES ($1, 'dev_owner', 'Rolling', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', $2,
                 '{APP_PURCHASED,APP_INSTALLED,APP_UNINSTALLED,APP_REFUNDED}', 'ENABLED', 'APPROVED', now(), now())`,
        [APP, receiver.url('/rolling')],
      );
      const sealed = sealSecret(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, APP, decodeEncryptionKey(TEST_ENCRYPTION_KEY, 'SECRET_ENCRYPTION_KEY'));
      await old.query(`INSERT INTO client_secrets (app_id, key_id, ciphertext, created_at) VALUES ($1, $2, $3, now())`, [APP, sealed.keyId, sealed.ciphertext]);
      const seeding = Date.now();
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         SELECT 'dlv_01HROLL' || lpad(i::text, 19, '0'), 'evt_01HROLL' || lpad(i::text, 19, '0'), $1, 'app.purchased', 'APP-1700000000000-ROLL' || i, 'SUCCEEDED', 1, 1, NULL,
                now() - interval '30 days', now() - interval '30 days'
           FROM generate_series(1, ${HISTORY}) i`,
        [APP],
      );
      await old.query('ANALYZE webhook_deliveries');
      console.log(JSON.stringify({ measured: { history: HISTORY, seededInSeconds: (Date.now() - seeding) / 1000 } }));
    } finally {
      await old.destroy();
    }

    const db = await openDatabase(url);
    cleanups.push(() => db.end());
    const oldWorker = await startWorkerProcess(url, WORKER_ENV, { root: previous!.root });
    const producer = await startPreviousProducer(previous!, url, APP, PER_SECOND);
    cleanups.push(() => producer.stop('SIGKILL'));
    const processes: PlazaProcess[] = [oldWorker];
    const delivered = () => new Set(receiver.requests.map((r) => String(r.headers['x-platform-delivery'])));
    // Before: the previous release records and delivers.
    await waitUntil('the previous release to deliver 40 purchases', () => delivered().size >= 40, 60_000, 100);

    // During: this release's API starts, migrates (holding the schema lock) and answers /readyz. No worker of its own
    // yet. A slow reader holds the deliveries' table in long reads throughout, which each ALTER of it must wait out.
    const sampler = await startLockSampler(url);
    const slowReader = await startSlowReader(url);
    const migrationStarted = Date.now();
    const api = await startApiProcess(url, {}, { readyWithinMs: 900_000 });
    const migrationEnded = Date.now();
    processes.push(api);
    const slowReads = await slowReader.stop();
    const longestWaits = await sampler.stop();
    // The migrations, then the per-endpoint indexes, the purchase's hash index and the open attempts' index on every
    // attempt partition built concurrently once the schema lock is released (concurrent-indexes.ts).
    const migratedIn =
      /"migrations":\[[^\]]*"DeliveryEndpointBackfill1796000028500"/.test(api.stdout()) &&
      /"indexes":\["idx_webhook_deliveries_endpoint_queue","idx_webhook_deliveries_endpoint_held","idx_webhook_deliveries_purchase_hash","idx_webhook_attempts_open"\]/.test(
        api.stdout(),
      );
    expect(migratedIn, api.output()).toBe(true);
    // When its log says the migrations were done (pino's time): the rest of the wait was the process starting.
    const migratedAt = Number(/"time":(\d+)[^\n]*"msg":"database migrated"/.exec(api.stdout())?.[1]);
    const sentDuring = receiver.requests.filter((r) => r.receivedAt > migrationStarted && r.receivedAt < migrationEnded).length;
    const producedDuring = producer.produced().filter((p) => p.startedAt > migrationStarted && p.startedAt < migrationEnded);

    // After: the old worker alone delivers what the previous release records against the new schema.
    const afterMigration = () => producer.produced().filter((p) => p.startedAt > migrationEnded);
    await waitUntil(
      'purchases recorded after the migration to be delivered by the old worker',
      () => afterMigration().filter((p) => delivered().has(p.id)).length >= 20,
      60_000,
      100,
    );

    // This release's worker joins; this release records purchases too; then the previous release stops.
    const newWorker = await startWorkerProcess(url, WORKER_ENV);
    processes.push(newWorker);
    const { purchase, close } = await purchaseEventProducer(url, APP, 'usr_rolling');
    cleanups.push(close);
    const recordedByNew: string[] = [];
    for (let i = 0; i < 20; i++) recordedByNew.push((await purchase())!.id);
    expect(await producer.stop(), producer.output()).toBe(0);
    expect(await oldWorker.stop('SIGTERM'), oldWorker.output()).toBe(0);
    for (let i = 0; i < 20; i++) recordedByNew.push((await purchase())!.id);

    const produced = producer.produced();
    expect(producer.failures()).toEqual([]);
    const committed = [...produced.map((p) => p.id), ...recordedByNew];
    await waitUntil(
      'every committed purchase to be delivered',
      async () => {
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1) AND status = 'SUCCEEDED'`, [committed]);
        return rows[0]!.n === committed.length;
      },
      120_000,
      200,
    );

    // Each attempt reached the receiver once, and every delivery's attempts are numbered 1..n with the last a 200.
    const received = receiver.requests.map((r) => `${String(r.headers['x-platform-delivery'])}/${String(r.headers['x-platform-attempt'])}`);
    expect(received.filter((key, i) => received.indexOf(key) !== i)).toEqual([]);
    expect(committed.filter((id) => !delivered().has(id))).toEqual([]);
    const { rows: attempts } = await db.query<{ delivery_id: string; numbers: number[]; last_status: number }>(
      `SELECT delivery_id, array_agg(number ORDER BY number) AS numbers, (array_agg(status_code ORDER BY number DESC))[1] AS last_status
         FROM webhook_attempts WHERE delivery_id = ANY($1) GROUP BY delivery_id`,
      [committed],
    );
    expect(attempts.filter((a) => a.last_status !== 200 || a.numbers.some((n, i) => n !== i + 1))).toEqual([]);
    expect(attempts).toHaveLength(committed.length);

    // The old worker went on delivering while the migration ran, and the previous release went on recording.
    expect(sentDuring).toBeGreaterThan(0);
    expect(slowReads, 'slow reads while it migrated').toBeGreaterThan(0);
    expect(producedDuring.length).toBeGreaterThan(0);
    // No write waited a second for a lock: no statement seen waiting on one that long (the old worker's claims and
    // result writes, the previous release's inserts), and the inserts, timed whole in their process, kept committing.
    const slowest = [...produced].sort((a, b) => b.ms - a.ms)[0]!;
    const commits = produced.map((p) => p.startedAt + p.ms).sort((a, b) => a - b);
    // The backfill's own account (its log line): batches, seconds working and resting.
    const backfillLine = api
      .stdout()
      .split('\n')
      .find((line) => line.includes('"msg":"deliveries given their endpoint"'));
    const logged = backfillLine ? (JSON.parse(backfillLine) as { batches: number; workSeconds: number; restSeconds: number }) : undefined;
    const backfilled = logged && { batches: logged.batches, workSeconds: logged.workSeconds, restSeconds: logged.restSeconds };
    const longestPause = Math.max(...commits.slice(1).map((at, i) => (at > migrationStarted && commits[i]! < migrationEnded ? at - commits[i]! : 0)));
    console.log(
      JSON.stringify({
        measured: {
          history: HISTORY,
          startedAndMigratedSeconds: (migrationEnded - migrationStarted) / 1000,
          migrationsDoneAfterSeconds: (migratedAt - migrationStarted) / 1000,
          producedDuring: producedDuring.length,
          sentByOldWorkerDuring: sentDuring,
          slowestInsertMs: Math.round(slowest.ms),
          slowestInsertDuringMigrationMs: Math.round(Math.max(...producedDuring.map((p) => p.ms))),
          longestPauseInCommitsDuringMigrationMs: Math.round(longestPause),
          longestLockWaits: longestWaits.slice(0, 5),
          slowReadsDuringMigration: slowReads,
          backfillDutyPercent: process.env.MIGRATION_BACKFILL_DUTY_PERCENT ?? 'default',
          backfill: backfilled,
        },
      }),
    );
    expect(longestWaits.filter((w) => w.ms >= MOST_WAIT_MS)).toEqual([]);
    // New events never stopped for a second. Not "no insert took a second": on this shared machine single inserts
    // took 1.2 s and 2.3 s in two runs at 1,000,000 with nothing waiting on a lock (the disk busy with the backfill's
    // writes), while others committed around them.
    expect(longestPause).toBeLessThan(MOST_WAIT_MS);

    // Every delivery, the history and those recorded during and after, has its endpoint.
    const byEndpoint = await db.query<{ endpoint_id: string | null; n: number }>('SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries GROUP BY 1');
    expect(byEndpoint.rows).toEqual([{ endpoint_id: ENDPOINT, n: HISTORY + committed.length }]);

    for (const process of [api, newWorker]) expect(await process.stop('SIGTERM'), process.output()).toBe(0);
  }, 1_800_000);
});
