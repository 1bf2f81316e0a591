import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { CLAIM_DUE_DELIVERIES } from '../src/modules/webhooks/delivery/delivery-queries.js';
import { HOLD_OPEN_OF_ENDPOINTS } from '../src/modules/webhooks/endpoints/webhook-endpoints.service.js';
import { newWebhookId } from '../src/platform/ids.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { emitEvent } from './helpers/webhooks.js';

// The result write locks the health rows of its batch in key order (endpoint-health-sql.ts), and a claim books the
// paced endpoints of its batch on their rows. A statement that updates many of those rows in an order of its own
// (the order of the table's pages, or of a hash) meets a writer that takes them in key order: each holds a row the
// other waits for, and PostgreSQL aborts one of them (40P01): a health sweep that fails, a claim that fails.
// Here the other writer is a transaction of the test's own that takes the rows in key order as the result write
// does, the first row before the statement runs and the rest once the statement waits for that one.

const ENDPOINTS = 20;

let plaza: TestPlaza;
let db: DataSource;
let appId: string;
let seedId: string;
let keyOrderWriter: pg.Client;

/** Endpoints (and their rows) made in reverse key order, so a scan of the table's pages visits them from the last key. */
async function endpointsInReverse(prefix: string, extra = ''): Promise<string[]> {
  const ids = Array.from({ length: ENDPOINTS }, (_, k) => `${prefix}_${String(k).padStart(3, '0')}`);
  for (const id of [...ids].reverse())
    await db.query(
      `INSERT INTO webhook_endpoints (id, app_id, url, state, created_at, updated_at${extra ? ', rate_limit_per_second' : ''})
                    VALUES ($1, $2, 'https://hooks.example/lock-order', 'ENABLED', now(), now()${extra ? `, ${extra}` : ''})`,
      [id, appId],
    );
  return ids;
}

/** `ENDPOINTS` pending deliveries of endpoint `endpointId`, none claimed, their rows made in reverse id order; their ids in key order. */
async function deliveriesInReverse(endpointId: string): Promise<string[]> {
  const ids = Array.from({ length: ENDPOINTS }, () => newWebhookId.delivery(Date.now())).sort();
  for (const id of [...ids].reverse())
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done,
                                       next_attempt_at, created_at, updated_at)
       SELECT $2, event_id, app_id, $3, event_type, purchase_id, 'PENDING', 0, 0, now() + interval '1 hour', now(), now()
         FROM webhook_deliveries WHERE id = $1`,
      [seedId, id, endpointId],
    );
  return ids;
}

/** Resolves once a backend other than the writer's waits for a lock (by pid: pg_stat_activity keeps only a long statement's first kilobyte). */
async function statementWaitsOnLock(): Promise<void> {
  const writerPid = (await keyOrderWriter.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  await expect
    .poll(
      async () =>
        (
          await db.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1 AND pid <> pg_backend_pid()`,
            [writerPid],
          )
        )[0].n,
      { timeout: 30_000, interval: 20 },
    )
    .toBe(1);
}

/**
 * Runs `statement` while the test's writer holds the first of `ids` (in key order), waits until the statement waits
 * for it, then has the writer take the others in key order, and lets go. Returns how the statement ended.
 */
async function againstKeyOrderWriter<T>(table: string, ids: string[], statement: () => Promise<T>): Promise<PromiseSettledResult<T>> {
  const key = table === 'webhook_endpoint_health' ? 'endpoint_id' : 'id';
  await keyOrderWriter.query('BEGIN');
  // A minute before this transaction looks for a deadlock, a second before the statement does: when there is one,
  // PostgreSQL aborts the statement under test, every time.
  await keyOrderWriter.query(`SET LOCAL deadlock_timeout = '60s'`);
  await keyOrderWriter.query(`SELECT 1 FROM ${table} WHERE ${key} = $1 FOR UPDATE`, [ids[0]]);
  const ended = statement().then(
    (value) => ({ status: 'fulfilled', value }) as const,
    (reason: unknown) => ({ status: 'rejected', reason }) as const,
  );
  await statementWaitsOnLock();
  await keyOrderWriter.query(`SELECT 1 FROM ${table} WHERE ${key} = ANY($1::text[]) ORDER BY ${key} FOR UPDATE`, [ids.slice(1)]);
  await keyOrderWriter.query('COMMIT');
  return ended;
}

beforeAll(async () => {
  plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  db = plaza.services.db;
  const developer = await plaza.signIn('row-lock-order@studio.test');
  appId = (await submitApp(developer, { webhookUrl: 'https://hooks.example/lock-order' })).id;
  seedId = (await emitEvent(plaza, appId)).id;
  // As the cluster's superuser, who may set its own deadlock_timeout.
  const adminUrl = new URL(inject('adminDatabaseUrl'));
  adminUrl.pathname = new URL(plaza.databaseUrl).pathname;
  keyOrderWriter = new pg.Client({ connectionString: adminUrl.toString() });
  await keyOrderWriter.connect();
}, 120_000);

afterAll(async () => {
  await keyOrderWriter?.end();
  await plaza?.stop();
});

describe('statements that update many rows lock them in key order, as the result write does', () => {
  it.each([
    [
      'runs with a delivery that gave up: the failure alert',
      'failing',
      'failing_since = now(), last_failure_at = now(), failed_deliveries = 1, alert_open = false',
      'WEBHOOK_FAILING',
    ],
    [
      'alerted runs a success ended: the recovery notice',
      'recovered',
      'failing_since = NULL, recovered_at = now(), failed_deliveries = 0, alerted_at = now(), alert_open = true',
      'WEBHOOK_RECOVERED',
    ],
  ])('the health sweep over %s goes through while a result write holds some of its rows', { timeout: 120_000 }, async (_, prefix, state, kind) => {
    const ids = await endpointsInReverse(`ep_${prefix}`);
    for (const id of [...ids].reverse())
      await db.query(`INSERT INTO webhook_endpoint_health (endpoint_id, app_id, last_error) VALUES ($1, $2, 'the receiver answered 500')`, [id, appId]);
    await db.query(`UPDATE webhook_endpoint_health SET ${state} WHERE endpoint_id = ANY($1::text[])`, [ids]);
    const notices = async () => (await db.query('SELECT count(*)::int AS n FROM notifications WHERE kind = $1', [kind]))[0].n;
    const before = await notices();

    const sweep = await againstKeyOrderWriter('webhook_endpoint_health', ids, () => plaza.services.webhookHealth.sweep());

    expect(sweep).toEqual({ status: 'fulfilled', value: undefined });
    // Every endpoint's run was told, once.
    expect((await notices()) - before).toBe(ENDPOINTS);
  });

  it('a claim books its paced endpoints while another claim holds some of them', { timeout: 120_000 }, async () => {
    const ids = await endpointsInReverse('ep_paced', '1000');
    const deliveries = ids.map(() => newWebhookId.delivery(Date.now()));
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done,
                                       next_attempt_at, created_at, updated_at)
       SELECT i.id, s.event_id, s.app_id, i.endpoint_id, s.event_type, s.purchase_id, 'PENDING', 0, 0, now() - interval '1 minute', now(), now()
         FROM webhook_deliveries s, unnest($2::text[], $3::text[]) AS i(id, endpoint_id) WHERE s.id = $1`,
      [seedId, deliveries, ids],
    );
    // Only these deliveries are due: the seed's own is claimed by nobody else here, so it is taken out of the way.
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 day' WHERE id = $1`, [seedId]);

    const claim = await againstKeyOrderWriter('webhook_endpoints', ids, () => db.query(CLAIM_DUE_DELIVERIES, ['lock-order-claim', 100, [], 60_000, '{}', 32, 0]));

    expect(claim.status, claim.status === 'rejected' ? String(claim.reason) : '').toBe('fulfilled');
    const claimed = (claim as PromiseFulfilledResult<{ id: string }[]>).value.map((row) => row.id).sort();
    expect(claimed).toEqual([...deliveries].sort());
    // Each endpoint's next free slot moved past the one delivery booked on it.
    const booked = await db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = ANY($1::text[]) AND pace_next_at IS NOT NULL`, [ids]);
    expect(booked[0].n).toBe(ENDPOINTS);
  });

  it('the health sweep disables endpoints while a claim holds some of them', { timeout: 120_000 }, async () => {
    const ids = await endpointsInReverse('ep_disable', '1000');
    // Runs of failure older than WEBHOOK_DISABLE_AFTER (five days), each with a delivery that gave up.
    for (const id of [...ids].reverse())
      await db.query(
        `INSERT INTO webhook_endpoint_health (endpoint_id, app_id, failing_since, last_failure_at, failed_deliveries, last_error)
         VALUES ($1, $2, now() - interval '6 days', now(), 1, 'the receiver answered 500')`,
        [id, appId],
      );
    const notices = async () => (await db.query(`SELECT count(*)::int AS n FROM notifications WHERE kind = 'WEBHOOK_DISABLED' AND message LIKE '%hooks.example/lock-order%'`))[0].n;
    const before = await notices();

    // The writer holds the endpoints' rows as a claim booking their paced slots does.
    const sweep = await againstKeyOrderWriter('webhook_endpoints', ids, () => plaza.services.webhookHealth.sweep());

    expect(sweep).toEqual({ status: 'fulfilled', value: undefined });
    const disabled = await db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = ANY($1::text[]) AND state = 'DISABLED'`, [ids]);
    expect(disabled[0].n).toBe(ENDPOINTS);
    // Every endpoint's owner was told, once.
    expect((await notices()) - before).toBe(ENDPOINTS);
  });

  it("the health sweep holds a paused endpoint's open deliveries, stepping over those a result write holds until its next pass", { timeout: 120_000 }, async () => {
    const [endpointId] = await endpointsInReverse('ep_paused');
    await db.query(`UPDATE webhook_endpoints SET state = 'PAUSED' WHERE id = $1`, [endpointId]);
    const deliveries = await deliveriesInReverse(endpointId!);
    const held = async () =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1::text[]) AND status = 'FAILED' AND held_reason IS NOT NULL AND next_attempt_at IS NULL`,
          [deliveries],
        )
      )[0].n;

    // The writer holds the first five deliveries' rows as a result write does, in id order, and keeps them.
    await keyOrderWriter.query('BEGIN');
    await keyOrderWriter.query(`SELECT 1 FROM webhook_deliveries WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [deliveries.slice(0, 5)]);
    try {
      const sweep = plaza.services.webhookHealth.sweep();
      // The sweep ends while the writer still holds its rows: it does not wait for them.
      const first = await Promise.race([sweep.then(() => 'ended' as const), statementWaitsOnLock().then(() => 'waits for a lock' as const)]);
      expect(first).toBe('ended');
      expect(await held()).toBe(ENDPOINTS - 5);
    } finally {
      await keyOrderWriter.query('COMMIT');
    }
    // The next pass holds the rest.
    await plaza.services.webhookHealth.sweep();
    expect(await held()).toBe(ENDPOINTS);
  });

  it('a pause goes through while a paced claim holds some of its deliveries and waits for the endpoint', { timeout: 120_000 }, async () => {
    const [endpointId] = await endpointsInReverse('ep_pausing', '1000');
    const deliveries = await deliveriesInReverse(endpointId!);
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 minute' WHERE id = ANY($1::text[])`, [deliveries]);
    // Only these deliveries are due: the seed's own is taken out of the way.
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 day' WHERE id = $1`, [seedId]);

    // The pause, as pauseWebhookEndpoint makes it: the endpoint's state first, then its open deliveries held. Between
    // the two, a claim of five of them books their endpoint's pace and waits for the row the pause changed.
    await keyOrderWriter.query('BEGIN');
    await keyOrderWriter.query(`UPDATE webhook_endpoints SET state = 'PAUSED', updated_at = clock_timestamp() WHERE id = $1`, [endpointId]);
    const claim = db.query(CLAIM_DUE_DELIVERIES, ['pause-claim', 5, [], 60_000, '{}', 32, 0]).then(
      (rows: { id: string }[]) => ({ status: 'fulfilled', value: rows }) as const,
      (reason: unknown) => ({ status: 'rejected', reason }) as const,
    );
    let holding: PromiseSettledResult<{ id: string }[]> | undefined;
    try {
      await statementWaitsOnLock();
      // Waiting here for the claim's five, the pause waited for the claim, which waits for it: PostgreSQL aborted the pause (40P01).
      holding = await keyOrderWriter.query(HOLD_OPEN_OF_ENDPOINTS, [[endpointId]]).then(
        (result) => ({ status: 'fulfilled', value: result.rows as { id: string }[] }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    } finally {
      await keyOrderWriter.query(holding?.status === 'fulfilled' ? 'COMMIT' : 'ROLLBACK');
    }

    expect(holding.status, holding.status === 'rejected' ? String(holding.reason) : '').toBe('fulfilled');
    const claimed = await claim;
    expect(claimed.status, claimed.status === 'rejected' ? String(claimed.reason) : '').toBe('fulfilled');
    const claimedIds = (claimed as { value: { id: string }[] }).value.map((row) => row.id);
    expect(claimedIds).toHaveLength(5);
    // Every other open delivery of the paused endpoint is held by the pause itself.
    const heldIds = (holding as PromiseFulfilledResult<{ id: string }[]>).value.map((row) => row.id).sort();
    expect(heldIds).toEqual(deliveries.filter((id) => !claimedIds.includes(id)).sort());
    const [endpoint] = await db.query('SELECT state FROM webhook_endpoints WHERE id = $1', [endpointId]);
    expect(endpoint.state).toBe('PAUSED');
  });
});
