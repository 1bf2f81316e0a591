import { beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_PARTITIONS, ensureAttemptPartitions, pruneOldAttempts, REQUEST_HEADER_PARTITIONS } from '../src/modules/webhooks/attempt-retention.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { loadConfig } from '../src/config.js';
import { newPurchaseId } from '../src/platform/ids.js';
import { ensurePartitions, PARTITION_SPAN_MS, partitionName, spanStart } from '../src/platform/time-partitions.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DELIVERY, emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';
import { connectPlazaDatabase } from '../src/app/entities.js';
import { createTestDatabase } from './helpers/database.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

const DAY = 86_400_000;
let plaza: TestPlaza;
let developer: GraphQLTestClient;
let appId: string;

beforeAll(async () => {
  // No worker: the test sets each delivery's state itself.
  plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  developer = await plaza.signIn('retention@studio.test');
  appId = (await submitApp(developer, { webhookUrl: 'https://hooks.example/plaza' })).id;
});

/** A delivery created `daysAgo` days ago, in `status`, with `attempts` recorded attempts. */
async function deliveryFrom(daysAgo: number, status: string, attempts: number): Promise<string> {
  const { db, webhookEvents } = plaza.services;
  const at = new Date(Date.now() - daysAgo * DAY);
  const delivery = await db.transaction((manager) =>
    webhookEvents.recordEvent(manager, {
      type: WebhookEventType.APP_PURCHASED,
      appId,
      userId: 'usr_1',
      purchaseId: newPurchaseId(at.getTime()),
      amountVnd: 1000,
      developerShareVnd: 800,
      at,
    }),
  );
  await db.query(`UPDATE webhook_deliveries SET status = $2, attempt_count = $3 WHERE id = $1`, [delivery!.id, status, attempts]);
  for (let number = 1; number <= attempts; number++) {
    await db.query(`INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished) VALUES ($1, $2, 'SCHEDULED', $3, 12, 500, true)`, [
      delivery!.id,
      number,
      at,
    ]);
  }
  return delivery!.id;
}

const attemptsOf = async (deliveryId: string) =>
  (await plaza.services.db.query(`SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1`, [deliveryId]))[0].n as number;

describe('attempt retention', () => {
  it('deletes the attempts of finished deliveries older than the retention, and nothing else', async () => {
    const oldSucceeded = await deliveryFrom(40, 'SUCCEEDED', 2);
    const oldFailed = await deliveryFrom(31, 'FAILED', 6);
    const oldStillRetrying = await deliveryFrom(40, 'RETRYING', 3);
    const recentFailed = await deliveryFrom(29, 'FAILED', 6);

    const deleted = await pruneOldAttempts(plaza.services.db, 30 * DAY);

    expect(deleted).toBe(8);
    expect(await attemptsOf(oldSucceeded)).toBe(0);
    expect(await attemptsOf(oldFailed)).toBe(0);
    expect(await attemptsOf(oldStillRetrying)).toBe(3);
    expect(await attemptsOf(recentFailed)).toBe(6);
    // The deliveries themselves stay in Webhook Logs with their outcome and attempt count.
    const [row] = await plaza.services.db.query(`SELECT status, attempt_count FROM webhook_deliveries WHERE id = $1`, [oldFailed]);
    expect(row).toEqual({ status: 'FAILED', attempt_count: 6 });
    expect(await pruneOldAttempts(plaza.services.db, 30 * DAY)).toBe(0);
  });

  it('deletes the request headers those attempts shared with them', async () => {
    const old = await deliveryFrom(50, 'SUCCEEDED', 1);
    const recent = await deliveryFrom(5, 'SUCCEEDED', 1);
    for (const id of [old, recent])
      await plaza.services.db.query(`INSERT INTO webhook_request_headers (delivery_id, headers) VALUES ($1, '{"x-platform-event": "app.purchased"}')`, [id]);

    await pruneOldAttempts(plaza.services.db, 30 * DAY);

    const kept = await plaza.services.db.query(`SELECT delivery_id FROM webhook_request_headers WHERE delivery_id = ANY($1::text[])`, [[old, recent]]);
    expect(kept).toEqual([{ delivery_id: recent }]);
  });

  it('is configured by WEBHOOK_ATTEMPT_RETENTION, 90 days by default', () => {
    expect(loadConfig({}).webhookAttemptRetentionMs).toBe(90 * DAY);
    expect(loadConfig({ WEBHOOK_ATTEMPT_RETENTION: '14d' }).webhookAttemptRetentionMs).toBe(14 * DAY);
    expect(() => loadConfig({ WEBHOOK_ATTEMPT_RETENTION: 'forever' })).toThrow(/WEBHOOK_ATTEMPT_RETENTION/);
  });

  it('drops whole spans of attempts and headers past the retention, keeping an unsettled delivery’s, which still read back', async () => {
    const { db } = plaza.services;
    const now = Date.now();
    // 52 and 51 days ago, past a 30-day retention by more than a span (a week), and yesterday.
    await ensurePartitions(db, ATTEMPT_PARTITIONS, now - 52 * DAY, now);
    await ensurePartitions(db, REQUEST_HEADER_PARTITIONS, now - 52 * DAY, now);
    const oldSettled = [await deliveryFrom(52, 'SUCCEEDED', 2), await deliveryFrom(51, 'FAILED', 3)];
    const oldRetrying = await deliveryFrom(51, 'RETRYING', 2);
    const recent = await deliveryFrom(1, 'SUCCEEDED', 1);
    for (const id of [...oldSettled, oldRetrying, recent])
      await db.query(`INSERT INTO webhook_request_headers (delivery_id, headers) VALUES ($1, '{"x-platform-event": "app.purchased"}')`, [id]);
    const partitionOf = async (table: string, id: string) =>
      (await db.query(`SELECT DISTINCT tableoid::regclass::text AS part FROM ${table} WHERE delivery_id = $1`, [id])).map((r: { part: string }) => r.part);
    const dayOf = (daysAgo: number) => spanStart(now - daysAgo * DAY);
    expect(await partitionOf('webhook_attempts', oldRetrying)).toEqual([partitionName(ATTEMPT_PARTITIONS, dayOf(51))]);
    const before = (await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id: oldRetrying })).webhookDelivery;
    expect(before.attempts).toHaveLength(2);
    const partitions = async (table: string) =>
      (await db.query(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = $1::regclass`, [table])).map((r: { name: string }) => r.name);

    await pruneOldAttempts(db, 30 * DAY, now);

    for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS]) {
      const left = await partitions(t.table);
      // Every span wholly past the retention is gone; those ending within it stay.
      for (const daysAgo of [52, 51, 38]) expect(left, `${t.table} ${daysAgo} days ago`).not.toContain(partitionName(t, dayOf(daysAgo)));
      for (const daysAgo of [29, 1, 0]) expect(left, `${t.table} ${daysAgo} days ago`).toContain(partitionName(t, dayOf(daysAgo)));
      expect(left).toContain(`${t.table}_default`);
    }
    for (const id of oldSettled) expect(await attemptsOf(id)).toBe(0);
    expect(await attemptsOf(recent)).toBe(1);
    // The unsettled delivery's attempts and headers moved to the default partition and read back as before.
    expect(await partitionOf('webhook_attempts', oldRetrying)).toEqual(['webhook_attempts_default']);
    expect(await partitionOf('webhook_request_headers', oldRetrying)).toEqual(['webhook_request_headers_default']);
    expect((await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id: oldRetrying })).webhookDelivery).toEqual(before);
    const headersLeft = await db.query(`SELECT delivery_id FROM webhook_request_headers WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id`, [
      [...oldSettled, oldRetrying, recent],
    ]);
    expect(headersLeft.map((r: { delivery_id: string }) => r.delivery_id)).toEqual([oldRetrying, recent].sort());
    // The deliveries stay, with their outcome and attempt count.
    const [settled] = await db.query(`SELECT status, attempt_count FROM webhook_deliveries WHERE id = $1`, [oldSettled[1]]);
    expect(settled).toEqual({ status: 'FAILED', attempt_count: 3 });

    // Once it settles, the default partition is pruned row by row.
    await db.query(`UPDATE webhook_deliveries SET status = 'FAILED' WHERE id = $1`, [oldRetrying]);
    expect(await pruneOldAttempts(db, 30 * DAY, now)).toBe(2);
    expect(await attemptsOf(oldRetrying)).toBe(0);
  });

  it('creates the partitions ahead of now, once', async () => {
    const at = Date.now() + 60 * DAY;
    const expected = [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS].flatMap((t) => [0, 1, 2].map((k) => partitionName(t, spanStart(at) + k * PARTITION_SPAN_MS)));
    expect((await ensureAttemptPartitions(plaza.services.db, at)).sort()).toEqual(expected.sort());
    expect(await ensureAttemptPartitions(plaza.services.db, at)).toEqual([]);
  });
});

describe('attempt partitions at worker start', () => {
  it('are created ahead before the first delivery, so a database left without them writes no attempt into the default partition', async () => {
    const url = await createTestDatabase();
    // Migrated, then left without partitions for now (as a database whose worker was down for weeks would be).
    const migrated = await connectPlazaDatabase(url);
    for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS]) {
      const parts = await migrated.query(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = $1::regclass`, [t.table]);
      for (const { name } of parts) if (name !== `${t.table}_default`) await migrated.query(`DROP TABLE ${name}`);
    }
    await migrated.destroy();

    const started = await startTestPlaza({ DATABASE_URL: url });
    const receiver = await WebhookReceiver.start();
    try {
      const { db } = started.services;
      const now = Date.now();
      const made = (await db.query(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'webhook_attempts'::regclass`)).map((r: { name: string }) => r.name);
      expect(made).toEqual(expect.arrayContaining([0, 1].map((k) => partitionName(ATTEMPT_PARTITIONS, spanStart(now) + k * PARTITION_SPAN_MS))));

      const owner = await started.signIn('worker-start@studio.test');
      const app = await submitApp(owner, { webhookUrl: receiver.url() });
      const delivery = await emitEvent(started, app.id);
      await waitForDelivery(owner, delivery.id, isFinal);
      for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS]) {
        const placed = await db.query(`SELECT DISTINCT tableoid::regclass::text AS part FROM ${t.table} WHERE delivery_id = $1`, [delivery.id]);
        expect(placed).toEqual([{ part: partitionName(t, spanStart(Date.now())) }]);
      }
    } finally {
      await receiver.close();
      await started.stop();
    }
  });
});
