import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUp } from '../src/modules/webhooks/delivery/attempt-rollup.js';
import { CLAIM_DUE_DELIVERIES, WRITE_RESULTS } from '../src/modules/webhooks/delivery/delivery-queries.js';
import { CLOSE_ABANDONED_ATTEMPTS } from '../src/modules/webhooks/delivery/manual-and-recovery-queries.js';
import { INTERRUPTED, RECORD_LATE_OUTCOMES, recordAttemptsBounds } from '../src/modules/webhooks/delivery/sql-fragments.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, succeededResult, waitForDelivery } from './helpers/webhooks.js';

// An attempt is recorded once, whole, when it ends: in flight it is a row of webhook_open_attempts, and its result
// moves it into webhook_attempts with its outcome, so that the attempts' pages keep no room for a second write.

/** How often each attempt partition's rows were inserted and updated, as PostgreSQL counts them (its statistics reach the view within seconds). */
const attemptRowCounts = async (plaza: TestPlaza) =>
  (
    await plaza.services.db.query(
      `SELECT COALESCE(sum(s.n_tup_ins), 0)::int AS inserted, COALESCE(sum(s.n_tup_upd), 0)::int AS updated
         FROM pg_inherits i JOIN pg_stat_user_tables s ON s.relid = i.inhrelid
        WHERE i.inhparent = 'webhook_attempts'::regclass`,
    )
  )[0] as { inserted: number; updated: number };

describe('a delivery sent by the engine', () => {
  let plaza: TestPlaza;

  beforeAll(async () => {
    plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '200ms,200ms' });
  });
  afterAll(async () => {
    await plaza?.stop();
  });

  it('shows its attempt in flight with no outcome, then records each attempt once, with its outcome, and none is ever rewritten', async () => {
    let answerFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (answerFirst = resolve));
    // The first attempt is held until the test has seen it in flight; it and the second fail, the third succeeds.
    const receiver = await WebhookReceiver.start((_request, index) => (index === 0 ? { status: 500, until: firstHeld } : { status: index < 2 ? 500 : 200 }));
    const developer = await plaza.signIn('written-once@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);

    await receiver.waitForRequests(1);
    const inFlight = await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 1);
    expect(inFlight.attempts[0]).toMatchObject({ number: 1, trigger: 'SCHEDULED', finished: false, statusCode: null, error: null });
    const [stored] = await plaza.services.db.query(
      `SELECT (SELECT count(*) FROM webhook_open_attempts WHERE delivery_id = $1)::int AS in_flight,
              (SELECT count(*) FROM webhook_attempts WHERE delivery_id = $1)::int AS recorded`,
      [delivery.id],
    );
    expect(stored).toEqual({ in_flight: 1, recorded: 0 });

    answerFirst();
    const done = await waitForDelivery(developer, delivery.id, (d) => isFinal(d) && d.attempts.every((a: any) => a.finished), 20_000);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => [a.number, a.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    const [left] = await plaza.services.db.query('SELECT count(*)::int AS n FROM webhook_open_attempts WHERE delivery_id = $1', [delivery.id]);
    expect(left.n).toBe(0);
    // Inserted three times (the only attempts of this database), never updated: each written once, whole.
    await expect.poll(() => attemptRowCounts(plaza), { timeout: 30_000, interval: 200 }).toMatchObject({ inserted: 3 });
    expect(await attemptRowCounts(plaza)).toEqual({ inserted: 3, updated: 0 });
    // So their partitions keep no room for an update.
    const fillfactors: { options: string[] | null }[] = await plaza.services.db.query(
      `SELECT c.reloptions AS options FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'webhook_attempts'::regclass`,
    );
    expect(fillfactors.length).toBeGreaterThan(0);
    for (const { options } of fillfactors) expect(options).toEqual(['fillfactor=100']);
  });
});

describe('a late answer to the engine', () => {
  let plaza: TestPlaza;

  beforeAll(async () => {
    plaza = await startTestPlaza();
  });
  afterAll(async () => {
    await plaza?.stop();
  });

  it('after another worker took the delivery over, is recorded with its outcome in place of the interrupted record', async () => {
    let answerFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (answerFirst = resolve));
    const receiver = await WebhookReceiver.start((_request, index) => (index === 0 ? { status: 200, until: firstHeld } : { status: 200 }));
    const developer = await plaza.signIn('late-answer@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    const { db } = plaza.services;
    await receiver.waitForRequests(1);

    // While attempt 1 is held, another worker takes the delivery over: its claim run out and claimed again in one
    // transaction (the engine's renewal waits for it, then finds the claim is not its own).
    const takeover = new pg.Client({ connectionString: plaza.databaseUrl });
    await takeover.connect();
    try {
      await takeover.query('BEGIN');
      await takeover.query(`UPDATE webhook_deliveries SET claim_expires_at = now() - interval '1 second' WHERE id = $1`, [delivery.id]);
      const { rows: taken } = await takeover.query(CLAIM_DUE_DELIVERIES, ['second', 200, [], 45_000, '{}', 32, 0]);
      expect(taken.map((row) => row.id)).toEqual([delivery.id]);
      await takeover.query('COMMIT');
    } finally {
      await takeover.end();
    }
    const attemptOne = async () => (await db.query(`SELECT status_code, error FROM webhook_attempts WHERE delivery_id = $1 AND number = 1`, [delivery.id]))[0];
    expect(await attemptOne()).toEqual({ status_code: null, error: INTERRUPTED });

    // The receiver answers attempt 1 now: the engine's write finds its claim gone, and records the answer all the same.
    answerFirst();
    await expect.poll(attemptOne, { timeout: 20_000, interval: 50 }).toEqual({ status_code: 200, error: null });
    const [row] = await db.query('SELECT claim_token, attempt_count FROM webhook_deliveries WHERE id = $1', [delivery.id]);
    expect(row).toEqual({ claim_token: 'second', attempt_count: 2 });
  });
});

describe('a result that arrives after its attempt was closed by a takeover', () => {
  let plaza: TestPlaza;

  beforeAll(async () => {
    plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  });
  afterAll(async () => {
    await plaza?.stop();
  });

  /** CLAIM_DUE_DELIVERIES' parameters for a worker claiming with `token`: up to 200 due now, leased 45 s, no endpoint full. */
  const claimedBy = (token: string) => [token, 200, [], 45_000, '{}', 32, 0];

  it('keeps its outcome, even when the takeover commits while the result is being written', async () => {
    const developer = await plaza.signIn('late-result@studio.test');
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example/late' });
    const delivery = await emitEvent(plaza, app.id);
    const { db } = plaza.services;
    // A first worker claims it and starts attempt 1, then stalls past its lease.
    await db.query(CLAIM_DUE_DELIVERIES, claimedBy('stalled'));
    await db.query(`UPDATE webhook_deliveries SET claim_expires_at = now() - interval '1 second' WHERE id = $1`, [delivery.id]);

    const takeover = new pg.Client({ connectionString: plaza.databaseUrl });
    const results = new pg.Client({ connectionString: plaza.databaseUrl, application_name: 'late-result' });
    await Promise.all([takeover.connect(), results.connect()]);
    try {
      // A second worker takes it over: attempt 1 is closed as interrupted, attempt 2 starts. Not committed yet.
      await takeover.query('BEGIN');
      const { rows: taken } = await takeover.query(CLAIM_DUE_DELIVERIES, claimedBy('second'));
      expect(taken.map((row) => [row.id, row.attempt_count])).toEqual([[delivery.id, 2]]);

      // Meanwhile the first worker's answer for attempt 1 arrives: its write starts before the takeover commits.
      const record = succeededResult(delivery.id, 1, 'https://hooks.example/late', { claim_token: 'stalled' });
      const { hourly, minutely, endpointHourly } = rollUp([]);
      const written = results.query(WRITE_RESULTS, [JSON.stringify([record]), 45_000, hourly, minutely, endpointHourly, ...recordAttemptsBounds([record])]);
      await expect
        .poll(async () => (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'late-result' AND wait_event_type = 'Lock'`))[0].n, {
          timeout: 30_000,
          interval: 20,
        })
        .toBe(1);
      await takeover.query('COMMIT');
      const { rows: movedOn } = await written;
      // Its claim was taken over: the delivery is the second worker's to move on.
      expect(movedOn).toEqual([]);
      // Not moved on, so possibly late: its outcome goes in place of the interrupted record, in a statement of its own
      // (attempt-results.ts does this for every result it did not move on).
      const { rows: late } = await results.query(RECORD_LATE_OUTCOMES, [JSON.stringify([record]), ...recordAttemptsBounds([record])]);
      expect(late).toEqual([{ replaced: 1 }]);
    } finally {
      await Promise.all([takeover.end(), results.end()]);
    }

    const attempts = await db.query(
      `SELECT number, finished, status_code, error, 'recorded' AS kept_in FROM webhook_attempts WHERE delivery_id = $1
       UNION ALL SELECT number, false, NULL, NULL, 'in flight' FROM webhook_open_attempts WHERE delivery_id = $1
       ORDER BY number`,
      [delivery.id],
    );
    // Attempt 1 as it ended (the receiver answered 200), not as the takeover closed it; attempt 2 in flight.
    expect(attempts).toEqual([
      { number: 1, finished: true, status_code: 200, error: null, kept_in: 'recorded' },
      { number: 2, finished: false, status_code: null, error: null, kept_in: 'in flight' },
    ]);
    const [row] = await db.query('SELECT status, claim_token, attempt_count FROM webhook_deliveries WHERE id = $1', [delivery.id]);
    expect(row).toEqual({ status: 'PENDING', claim_token: 'second', attempt_count: 2 });
  });
});

describe('migration 1796000036000 on a populated database, beside the previous release', () => {
  const MINE = 'AttemptsWrittenOnce1796000036000';

  it('leaves the attempts started the previous way for the recovery pass to close, and down puts the attempts in flight back where that release looks', async () => {
    const url = await createTestDatabase();
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await migratedDataSource(url, MIGRATIONS.slice(0, mine));
    const appId = 'app_01KMIGRATIONOPENATTEMPTS0A';
    const base = Date.now() - 10 * 60_000;
    const [settled, abandoned, running] = [0, 1, 2].map((k) => newWebhookId.delivery(base + k * 1000)) as [string, string, string];
    for (const id of [settled, abandoned, running]) {
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, $5, 1, 0, now(), now())`,
        [id, newWebhookId.event(base), appId, newPurchaseId(base), id === settled ? 'SUCCEEDED' : 'PENDING'],
      );
    }
    // As the previous release records them: started in webhook_attempts, its outcome written over it.
    await old.query(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished)
       VALUES ($1, 1, 'SCHEDULED', now() - interval '9 minutes', 30, 200, true), ($2, 1, 'SCHEDULED', now() - interval '8 minutes', NULL, NULL, false)`,
      [settled, abandoned],
    );
    await old.destroy();

    const migrated = await migratedDataSource(url, MIGRATIONS.slice(0, mine + 1));
    try {
      const fillfactors = await migrated.query(
        `SELECT DISTINCT c.reloptions AS options FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'webhook_attempts'::regclass`,
      );
      expect(fillfactors).toEqual([{ options: ['fillfactor=100'] }]);
      // This release's attempt in flight, beside the previous release's abandoned one: the recovery pass closes the latter where it is.
      await migrated.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) VALUES ($1, 1, 'SCHEDULED', now())`, [running]);
      const [{ closed }] = await migrated.query(CLOSE_ABANDONED_ATTEMPTS, [60_000]);
      expect(closed).toBe(1);
      const attempts = async () =>
        migrated.query('SELECT delivery_id, number, finished, status_code, error IS NOT NULL AS interrupted FROM webhook_attempts ORDER BY delivery_id, number');
      expect(await attempts()).toEqual([
        { delivery_id: settled, number: 1, finished: true, status_code: 200, interrupted: false },
        { delivery_id: abandoned, number: 1, finished: true, status_code: null, interrupted: true },
      ]);

      // Down: the attempt in flight is a started row of webhook_attempts again, as the previous release records one.
      await migrated.undoLastMigration({ transaction: 'each' });
      expect(await attempts()).toEqual([
        { delivery_id: settled, number: 1, finished: true, status_code: 200, interrupted: false },
        { delivery_id: abandoned, number: 1, finished: true, status_code: null, interrupted: true },
        { delivery_id: running, number: 1, finished: false, status_code: null, interrupted: false },
      ]);
      const [{ table }] = await migrated.query(`SELECT to_regclass('webhook_open_attempts')::text AS table`);
      expect(table).toBeNull();
      const restored = await migrated.query(
        `SELECT DISTINCT c.reloptions AS options FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'webhook_attempts'::regclass`,
      );
      expect(restored).toEqual([{ options: ['fillfactor=70'] }]);
    } finally {
      await migrated.destroy();
    }
  });
});
