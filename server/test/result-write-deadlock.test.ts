import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { AttemptResults, type AttemptResult } from '../src/modules/webhooks/delivery/attempt-results.js';
import type { ClaimedDelivery } from '../src/modules/webhooks/delivery/delivery-queries.js';
import { AttemptTrigger, DeliveryStatus } from '../src/modules/webhooks/webhook.types.js';
import { databasePool } from '../src/platform/database.js';
import { newWebhookId } from '../src/platform/ids.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { emitEvent } from './helpers/webhooks.js';

// Two workers write their batches of results at once, and their batches touch the same endpoints' health rows:
// each endpoint of the batch had a failure (its run of failures goes on) or a success (its run ends). When one
// worker's batch fails where the other's succeeds and the other way round, a write that locked those rows in
// an order of its own (one pass for the runs that go on, another for those that end) waited for the other while
// the other waited for it: PostgreSQL aborts one of them (40P01), and its attempts' outcomes were lost, the
// deliveries sent again once their claims expired.

/** Endpoints each batch touches: every one in both workers' batches. */
const ENDPOINTS = 300;
const ROUNDS = 12;

let plaza: TestPlaza;
let db: DataSource;
let seedId: string;
let appId: string;
let ownerId: string;
const endpointIds: string[] = [];

const writer = (pool: pg.Pool) =>
  new AttemptResults(
    pool,
    plaza.services.db,
    plaza.services.pubSub,
    // A batch is written when full; a failed attempt retries in a minute, so nothing is kept or retried meanwhile.
    { retryScheduleMs: [60_000, 60_000], leaseMs: 60_000, claimAheadMs: 0, batchSize: ENDPOINTS, flushIntervalMs: 60_000 },
    { keepsNearRetries: () => false, sendKept: () => undefined, written: () => undefined, healthChanged: () => undefined },
  );

/** Deliveries claimed by `token`, one per endpoint (in `order`), each with its first attempt started. */
async function claimedDeliveries(token: string, order: string[]): Promise<ClaimedDelivery[]> {
  const ids = order.map(() => newWebhookId.delivery(Date.now()));
  await db.query(
    `INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done,
                                     next_attempt_at, claim_token, claim_expires_at, created_at, updated_at)
     SELECT i.id, s.event_id, s.app_id, i.endpoint_id, s.event_type, s.purchase_id, 'PENDING', 1, 0, now(), $3, now() + interval '1 hour', now(), now()
       FROM webhook_deliveries s, unnest($2::text[], $4::text[]) AS i(id, endpoint_id) WHERE s.id = $1`,
    [seedId, ids, token, order],
  );
  await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) SELECT i, 1, 'SCHEDULED', now() FROM unnest($1::text[]) i`, [ids]);
  const [seed] = await db.query('SELECT event_type, purchase_id, created_at FROM webhook_deliveries WHERE id = $1', [seedId]);
  return ids.map((id, k) => ({
    id,
    claim_token: token,
    app_id: appId,
    owner_id: ownerId,
    event_type: seed.event_type,
    purchase_id: seed.purchase_id,
    attempt_count: 1,
    scheduled_attempts_done: 0,
    created_at: seed.created_at,
    status: DeliveryStatus.PENDING,
    recovering: false,
    endpoint_id: order[k]!,
    webhook_state: 'ENABLED',
    rate_limit_per_second: null,
    wait_ms: 0,
    payload: '{}',
    webhook_url: 'https://hooks.example/deadlock',
    key_id: 'k',
    ciphertext: Buffer.alloc(0),
    previous_key_id: null,
    previous_ciphertext: null,
    previous_valid_until: null,
  }));
}

const outcome = (delivery: ClaimedDelivery, succeeded: boolean): AttemptResult => ({
  delivery,
  number: 1,
  trigger: AttemptTrigger.SCHEDULED,
  startedAt: new Date(),
  url: delivery.webhook_url,
  headers: null,
  response: succeeded
    ? { statusCode: 200, error: null, responseBodyExcerpt: 'ok', durationMs: 5 }
    : { statusCode: 500, error: 'the receiver answered 500', responseBodyExcerpt: 'no', durationMs: 5 },
});

beforeAll(async () => {
  plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  db = plaza.services.db;
  const developer = await plaza.signIn('result-write-deadlock@studio.test');
  ownerId = developer.userId;
  appId = (await submitApp(developer, { webhookUrl: 'https://hooks.example/deadlock' })).id;
  seedId = (await emitEvent(plaza, appId)).id;
  for (let k = 0; k < ENDPOINTS; k++) endpointIds.push(`ep_deadlock_${String(k).padStart(3, '0')}`);
  await db.query(
    `INSERT INTO webhook_endpoints (id, app_id, url, state, created_at, updated_at)
     SELECT i, $2, 'https://hooks.example/deadlock', 'ENABLED', now(), now() FROM unnest($1::text[]) i`,
    [endpointIds, appId],
  );
}, 120_000);

afterAll(async () => {
  await plaza?.stop();
});

describe('two workers writing results for the same endpoints at once', () => {
  it('both write every outcome: one fails where the other succeeds, endpoint by endpoint, round after round', { timeout: 300_000 }, async () => {
    // The two workers' own connections: once they are closed, PostgreSQL has counted every deadlock they met.
    const pool = new pg.Pool({ connectionString: plaza.databaseUrl, application_name: 'deadlock-writers', max: 4 });
    const deadlocks = async (): Promise<number> => (await db.query('SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()'))[0].n;
    const deadlocksBefore = await deadlocks();
    const lost: string[] = [];
    let roundsWithLoss = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Every endpoint in a run of failures, so that a success ends it (a write of the health row) as a failure continues it.
      await db.query(
        `INSERT INTO webhook_endpoint_health (endpoint_id, app_id, failing_since, last_failure_at, last_error, failed_deliveries)
         SELECT i, $2, now(), now(), 'the receiver answered 500', 0 FROM unnest($1::text[]) i
         ON CONFLICT (endpoint_id) DO UPDATE SET failing_since = EXCLUDED.failing_since, failed_deliveries = 0`,
        [endpointIds, appId],
      );
      // The first worker's batch in the endpoints' order, the second's in reverse; each fails where the other succeeds.
      const first = await claimedDeliveries(`first-${round}`, endpointIds);
      const second = await claimedDeliveries(`second-${round}`, [...endpointIds].reverse());
      const writers = [writer(pool), writer(pool)];
      const odd = (d: ClaimedDelivery) => endpointIds.indexOf(d.endpoint_id!) % 2 === 1;
      for (const d of first) writers[0]!.add(outcome(d, !odd(d)));
      for (const d of second) writers[1]!.add(outcome(d, odd(d)));
      await Promise.all(writers.map((w) => w.flush()));
      // Every outcome written: no delivery left claimed with its attempt open (a write that failed leaves exactly that).
      const ids = [...first, ...second].map((d) => d.id);
      const open: { id: string }[] = await db.query(
        `SELECT d.id FROM webhook_deliveries d
          WHERE d.id = ANY($1::text[])
            AND (d.status = 'PENDING' OR d.claim_token IS NOT NULL
                 OR EXISTS (SELECT 1 FROM webhook_open_attempts o WHERE o.delivery_id = d.id)
                 OR NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.finished))`,
        [ids],
      );
      lost.push(...open.map((row) => row.id));
      if (open.length > 0) roundsWithLoss++;
    }
    await pool.end();
    // A backend reports its counts as it exits, before it leaves pg_stat_activity.
    await expect
      .poll(async () => (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'deadlock-writers'`))[0].n, { timeout: 30_000 })
      .toBe(0);
    const deadlocked = (await deadlocks()) - deadlocksBefore;
    console.log(JSON.stringify({ rounds: ROUNDS, endpoints: ENDPOINTS, deadlocked, roundsWithLoss, outcomesNotWritten: lost.length }));
    expect(lost).toEqual([]);
    // Not even one write to try again: each waits for the other's rows at most, in the one order both lock them.
    expect(deadlocked).toBe(0);
  });

  it('writes a batch again that PostgreSQL aborted as a deadlock, while its claims stand: its outcome is kept, not sent again', { timeout: 120_000 }, async () => {
    const pool = databasePool(db);
    const endpoint = endpointIds[0]!;
    // The endpoint in a run of failures: a success ends it, so the write changes (and locks) its health row.
    await db.query(
      `INSERT INTO webhook_endpoint_health (endpoint_id, app_id, failing_since, last_failure_at, failed_deliveries) VALUES ($1, $2, now(), now(), 0)
       ON CONFLICT (endpoint_id) DO UPDATE SET failing_since = now()`,
      [endpoint, appId],
    );
    const [delivery] = await claimedDeliveries('aborted-once', [endpoint]);
    const results = writer(pool);
    // Another transaction holds the health row, so the write, once it has locked the delivery, waits for it...
    // As the cluster's superuser, so that this transaction may wait longer than the write before it looks for a
    // deadlock: PostgreSQL aborts the one that finds it, and it is to be the write, every time.
    const adminUrl = new URL(inject('adminDatabaseUrl'));
    adminUrl.pathname = new URL(plaza.databaseUrl).pathname;
    const other = new pg.Client({ connectionString: adminUrl.toString() });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SET LOCAL deadlock_timeout = '60s'`);
      await other.query('SELECT 1 FROM webhook_endpoint_health WHERE endpoint_id = $1 FOR UPDATE', [endpoint]);
      results.add(outcome(delivery!, true));
      const written = results.flush();
      await expect
        .poll(
          async () =>
            (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH r AS%'`))[0].n,
          { timeout: 30_000, interval: 20 },
        )
        .toBe(1);
      // ...and then asks for the delivery's row: each waits for the other. PostgreSQL aborts the write (its deadlock
      // check runs after a second, this transaction's after a minute); this one gets the row once the write let go.
      await other.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [delivery!.id]);
      await other.query('ROLLBACK');
      await written;
    } finally {
      await other.end();
    }
    const [row] = await db.query(
      `SELECT d.status, d.claim_token, a.finished, a.status_code FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.id = $1`,
      [delivery!.id],
    );
    expect(row).toEqual({ status: 'SUCCEEDED', claim_token: null, finished: true, status_code: 200 });
    const [health] = await db.query('SELECT failing_since FROM webhook_endpoint_health WHERE endpoint_id = $1', [endpoint]);
    expect(health.failing_since).toBeNull();
  });
});
