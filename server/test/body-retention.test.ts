import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The decorated classes imported below need it loaded first (the typeorm import that did it is gone).
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../src/config.js';
import { EVENTS_TABLE, pruneOldBodies } from '../src/modules/webhooks/body-retention.js';
import { EVENT_BODIES } from '../src/modules/webhooks/delivery-log.service.js';
import { BODY_NOT_KEPT, WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { ensurePartitions, partitionName, spanStart } from '../src/platform/time-partitions.js';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

const DAY = 86_400_000;
const BODY_FIELDS = `query($id: ID!) { webhookDelivery(id: $id) { id status attemptCount payload payloadKept attempts { number trigger error } } }`;
const REDELIVER = 'mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id attemptCount } }';

describe('WEBHOOK_BODY_RETENTION, the setting', () => {
  const base = { SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), DATA_DIR: '/tmp/plaza-config-test' };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
    } catch (err) {
      if (err instanceof ConfigError) return err;
      throw err;
    }
    throw new Error('expected a ConfigError');
  };

  it('keeps bodies for ever unless told otherwise, and refuses what it cannot honour, naming itself', () => {
    expect(loadConfig(base).webhookBodyRetentionMs).toBeNull();
    expect(loadConfig({ ...base, WEBHOOK_BODY_RETENTION: 'forever' }).webhookBodyRetentionMs).toBeNull();
    expect(loadConfig({ ...base, WEBHOOK_BODY_RETENTION: '180d' }).webhookBodyRetentionMs).toBe(180 * DAY);
    expect(loadConfig({ ...base, WEBHOOK_BODY_RETENTION: '14d', WEBHOOK_ATTEMPT_RETENTION: '14d' }).webhookBodyRetentionMs).toBe(14 * DAY);
    expect(refusal({ WEBHOOK_BODY_RETENTION: 'soon' }).message).toBe('WEBHOOK_BODY_RETENTION must be forever or a positive duration such as 180d (got "soon")');
    // Shorter than the attempts': an attempt would be shown without the body it sent.
    expect(refusal({ WEBHOOK_BODY_RETENTION: '30d' }).message).toMatch(/^WEBHOOK_BODY_RETENTION must be forever or at least WEBHOOK_ATTEMPT_RETENTION .*\(got "30d"\)$/);
  });
});

describe('body retention', () => {
  let plaza: TestPlaza;
  let developer: GraphQLTestClient;
  let receiver: WebhookReceiver;
  let appId: string;
  /** Purchases whose deliveries the receiver answers 500. */
  const failing = new Set<string>();
  const purchaseOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { purchase_id: string }).purchase_id;
  const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY);
  const read = async (id: string) => (await developer.ok<{ webhookDelivery: any }>(BODY_FIELDS, { id })).webhookDelivery;
  /** An event of `daysAgo` days ago (its ids carry that time), recorded as the marketplace records one. */
  const emitAt = async (daysAgo: number, purchaseId = newPurchaseId()) =>
    (await plaza.services.db.transaction((manager) =>
      plaza.services.webhookEvents.recordEvent(manager, {
        type: WebhookEventType.APP_PURCHASED,
        appId,
        userId: 'usr_1',
        purchaseId,
        amountVnd: 1000,
        developerShareVnd: 800,
        at: at(daysAgo),
      }),
    ))!;
  const partitionOf = async (eventId: string) =>
    (await plaza.services.db.query('SELECT tableoid::regclass::text AS name FROM webhook_events WHERE id = $1', [eventId]))[0]?.name as string | undefined;
  const exists = async (table: string) => (await plaza.services.db.query('SELECT to_regclass($1) IS NOT NULL AS found', [table]))[0].found as boolean;

  beforeAll(async () => {
    plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s,2s,2s', WEBHOOK_TIMEOUT: '2s' });
    developer = await plaza.signIn('bodies@studio.test');
    receiver = await WebhookReceiver.start((request) => ({ status: failing.has(purchaseOf(request.rawBody)) ? 500 : 200 }));
    appId = (await submitApp(developer, { webhookUrl: receiver.url() })).id;
    // A database that has run for 50 days: a partition per week since then.
    await ensurePartitions(plaza.services.db, EVENTS_TABLE, Date.now() - 50 * DAY, Date.now());
  });

  afterAll(async () => {
    await plaza?.stop();
  });

  let oldSucceeded: { id: string; eventId: string };
  let oldBody: string;

  // Partitions span a week (PARTITION_SPAN_MS): a body is dropped once its whole week is past the retention,
  // so "old" here is at least a week older than the retention, and "recent" younger than it.
  it('drops the bodies of finished deliveries past the retention a partition at a time: they read payload "" and payloadKept false, by id and in the log', async () => {
    const old = await emitAt(40);
    const recent = await emitAt(5);
    oldSucceeded = old;
    oldBody = old.payloadText!;
    for (const d of [old, recent]) await waitForDelivery(developer, d.id, isFinal);
    expect(await partitionOf(old.eventId)).toBe(partitionName(EVENTS_TABLE, spanStart(at(40).getTime())));

    const pruned = await pruneOldBodies(plaza.services.db, 30 * DAY);

    // Whole weeks past the retention are gone (the event's among them); the rest stays.
    expect(pruned.droppedPartitions).toContain(partitionName(EVENTS_TABLE, spanStart(at(40).getTime())));
    expect(await exists(partitionName(EVENTS_TABLE, spanStart(at(40).getTime())))).toBe(false);
    expect(await exists(partitionName(EVENTS_TABLE, spanStart(at(5).getTime())))).toBe(true);
    expect(pruned.bodiesKept).toBe(0);

    const gone = await read(old.id);
    expect(gone).toMatchObject({ id: old.id, status: 'SUCCEEDED', attemptCount: 1, payload: '', payloadKept: false });
    // The delivery keeps its record: attempts go by WEBHOOK_ATTEMPT_RETENTION, not with the body.
    expect(gone.attempts.map((a: any) => a.number)).toEqual([1]);
    const kept = await read(recent.id);
    expect(kept).toMatchObject({ payload: recent.payloadText, payloadKept: true });

    const log = await developer.ok<{ webhookDeliveries: any }>(
      'query($appId: ID!) { webhookDeliveries(filter: { appId: $appId }, first: 10) { edges { node { id payload payloadKept } } } }',
      { appId },
    );
    const nodes = new Map(log.webhookDeliveries.edges.map((e: any) => [e.node.id, e.node]));
    expect(nodes.get(old.id)).toEqual({ id: old.id, payload: '', payloadKept: false });
    expect(nodes.get(recent.id)).toEqual({ id: recent.id, payload: recent.payloadText, payloadKept: true });
    expect(oldBody).toContain(old.purchaseId);
  });

  it('refuses to redeliver a delivery whose body is gone, with CONFLICT, sending and counting nothing', async () => {
    const requestsBefore = receiver.requests.length;
    const before = await read(oldSucceeded.id);

    const error = await developer.error(REDELIVER, { id: oldSucceeded.id });

    expect(error.extensions).toMatchObject({ code: 'CONFLICT', reason: 'BODY_NOT_KEPT' });
    expect(error.message).toMatch(/no longer kept.*WEBHOOK_BODY_RETENTION/);
    expect(await read(oldSucceeded.id)).toEqual(before);
    const [row] = await plaza.services.db.query('SELECT attempt_count, updated_at FROM webhook_deliveries WHERE id = $1', [oldSucceeded.id]);
    expect(row.attempt_count).toBe(1);
    expect(receiver.requests.length).toBe(requestsBefore);
  });

  it('keeps the body of a delivery still retrying, however old, and sends it byte for byte', async () => {
    // Its week's partition again (the first prune dropped it), as on a database where it is still there.
    await ensurePartitions(plaza.services.db, EVENTS_TABLE, at(45).getTime(), at(45).getTime() + 1);
    const dayOfIt = partitionName(EVENTS_TABLE, spanStart(at(45).getTime()));
    const purchaseId = newPurchaseId();
    failing.add(purchaseId);
    const retrying = await emitAt(45, purchaseId);
    expect(await partitionOf(retrying.eventId)).toBe(dayOfIt);
    await waitForDelivery(developer, retrying.id, (d) => d.status === 'RETRYING');

    const pruned = await pruneOldBodies(plaza.services.db, 30 * DAY);

    // Its week is dropped all the same; its event moved to the default partition first.
    expect(pruned.droppedPartitions).toContain(dayOfIt);
    expect(pruned.bodiesKept).toBe(1);
    expect(await partitionOf(retrying.eventId)).toBe('webhook_events_default');
    // Still retrying (so the prune met it open), with its body.
    expect(await read(retrying.id)).toMatchObject({ status: 'RETRYING', payload: retrying.payloadText, payloadKept: true });

    failing.delete(purchaseId);
    const done = await waitForDelivery(developer, retrying.id, (d) => d.status === 'SUCCEEDED', 20_000);
    const sent = receiver.requests.filter((r) => purchaseOf(r.rawBody) === purchaseId);
    expect(sent.length).toBe(done.attemptCount);
    for (const request of sent) expect(request.rawBody.toString('utf8')).toBe(retrying.payloadText);

    // Settled now and past the retention: the default partition's copy goes by the next run.
    const again = await pruneOldBodies(plaza.services.db, 30 * DAY);
    expect(again.bodiesDeleted).toBe(1);
    expect(await read(retrying.id)).toMatchObject({ status: 'SUCCEEDED', payload: '', payloadKept: false });
  });

  it('recovers only the failed deliveries that still have their body, and says how many it skipped', async () => {
    // Held while the app's webhook endpoint was disabled: recorded FAILED, never sent (as the health sweep leaves them).
    await plaza.services.db.query(`UPDATE webhook_endpoints SET state = 'DISABLED' WHERE app_id = $1`, [appId]);
    // Its week's partition went with the first prune: it lands in the default partition, pruned row by row.
    const heldOld = await emitAt(39);
    const heldRecent = await emitAt(3);
    await pruneOldBodies(plaza.services.db, 30 * DAY);
    await developer.ok('mutation($appId: ID!) { enableWebhook(appId: $appId) { id } }', { appId });
    const requestsBefore = receiver.requests.length;

    const { recoverWebhookDeliveries } = await developer.ok<{ recoverWebhookDeliveries: any }>(
      'mutation($appId: ID!, $since: DateTime!) { recoverWebhookDeliveries(appId: $appId, since: $since) { deliveriesQueued deliveriesSkipped } }',
      { appId, since: at(40).toISOString() },
    );

    expect(recoverWebhookDeliveries).toEqual({ deliveriesQueued: 1, deliveriesSkipped: 1 });
    await waitForDelivery(developer, heldRecent.id, (d) => d.status === 'SUCCEEDED');
    expect(receiver.requests.slice(requestsBefore).map((r) => r.rawBody.toString('utf8'))).toEqual([heldRecent.payloadText]);
    expect(await read(heldOld.id)).toMatchObject({ status: 'FAILED', attemptCount: 0, payload: '', payloadKept: false });
  });

  it('reads bodies from the partitions holding them alone, however many weeks of them are kept', async () => {
    const { db } = plaza.services;
    // A year and more of weekly partitions.
    await ensurePartitions(db, EVENTS_TABLE, Date.now() - 400 * DAY, Date.now());
    const partitions = (await db.query(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'webhook_events'::regclass`))[0].n as number;
    expect(partitions).toBeGreaterThan(50);
    const [today, twoWeeksAgo] = [await emitAt(0), await emitAt(14)];
    const scanned = async (sql: string, ids: string[]) => {
      const [
        {
          'QUERY PLAN': [plan],
        },
      ] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, [ids]);
      return [...JSON.stringify(plan).matchAll(/"Relation Name":"(webhook_events[a-z0-9_]*)"/g)].map((m) => m[1]);
    };

    // The log's statement (the payload loader and webhookDelivery): planned for the two weeks asked for.
    expect((await scanned(EVENT_BODIES, [today.eventId, twoWeeksAgo.eventId])).sort()).toEqual(
      [partitionName(EVENTS_TABLE, spanStart(at(14).getTime())), partitionName(EVENTS_TABLE, spanStart(Date.now()))].sort(),
    );
    // Joined from the deliveries instead, every partition is planned (and, at a year of them, read).
    const joined = await scanned('SELECT d.id, e.payload FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.id = ANY($1::text[])', [
      today.id,
      twoWeeksAgo.id,
    ]);
    expect(new Set(joined).size).toBe(partitions);
    // Sent meanwhile: let them finish before the next test counts what the receiver got.
    for (const d of [today, twoWeeksAgo]) await waitForDelivery(developer, d.id, isFinal);
  });

  it('never sends a claimed delivery without its body: its one attempt says why and it ends FAILED', async () => {
    const requestsBefore = receiver.requests.length;
    // A delivery open without its event, which retention never leaves (it keeps open deliveries' bodies).
    const orphan = await plaza.services.db.transaction(async (manager) => {
      const delivery = await plaza.services.webhookEvents.recordEvent(manager, {
        type: WebhookEventType.APP_PURCHASED,
        appId,
        userId: 'usr_1',
        purchaseId: newPurchaseId(),
        amountVnd: 1000,
        developerShareVnd: 800,
      });
      await manager.query('DELETE FROM webhook_events WHERE id = $1', [delivery!.eventId]);
      return delivery!;
    });

    await waitForDelivery(developer, orphan.id, isFinal);

    const ended = await read(orphan.id);
    expect(ended).toMatchObject({ status: 'FAILED', attemptCount: 1, payload: '', payloadKept: false });
    expect(ended.attempts).toEqual([{ number: 1, trigger: 'SCHEDULED', error: BODY_NOT_KEPT }]);
    expect(receiver.requests.length).toBe(requestsBefore);
  });
});

describe('migration 1796000025000 on a populated database', () => {
  const MINE = 'PartitionedEvents1796000025000';
  let plaza: TestPlaza | undefined;

  afterAll(async () => {
    await plaza?.stop();
  });

  it('carries every event over into its week’s partition; bodies read back identical through the API and new events are recorded', async () => {
    const url = await createTestDatabase();
    const migrate = (migrations: typeof MIGRATIONS) => migratedDataSource(url, migrations);
    // The schema as it was just before this migration (the later ones run after it below).
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await migrate(MIGRATIONS.slice(0, mine));

    const appId = 'app_01KMIGRATIONEVENTS000000A';
    await old.query(
      `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
       VALUES ($1, 'dev_owner', 'Migrated', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', 'https://hooks.example/plaza', 'APPROVED', now(), now())`,
      [appId],
    );
    // Events over the last three weeks (bodies with non-ASCII text, byte for byte), settled and not.
    const seeded = [20, 9, 9, 4, 1, 0].map((daysAgo, k) => {
      const time = Date.now() - daysAgo * DAY - k * 1000;
      const purchaseId = newPurchaseId(time);
      return {
        deliveryId: newWebhookId.delivery(time),
        eventId: newWebhookId.event(time),
        time,
        purchaseId,
        status: k === 4 ? 'RETRYING' : 'SUCCEEDED',
        payload: JSON.stringify({ event: 'app.purchased', app_id: appId, purchase_id: purchaseId, note: `đơn hàng ${k} ✓`, amount_vnd: 1000 * k }),
      };
    });
    for (const s of seeded) {
      await old.query(`INSERT INTO webhook_events (id, type, app_id, user_id, purchase_id, payload, created_at) VALUES ($1, 'app.purchased', $2, 'usr_1', $3, $4, $5)`, [
        s.eventId,
        appId,
        s.purchaseId,
        s.payload,
        new Date(s.time),
      ]);
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, $5, 1, 1, $6, $7, $7)`,
        [s.deliveryId, s.eventId, appId, s.purchaseId, s.status, s.status === 'RETRYING' ? new Date(Date.now() + DAY) : null, new Date(s.time)],
      );
    }
    await old.destroy();

    const migrated = await migrate(MIGRATIONS);
    try {
      const [{ strategy }] = await migrated.query(`SELECT partstrat AS strategy FROM pg_partitioned_table WHERE partrelid = 'webhook_events'::regclass`);
      expect(strategy).toBe('r');
      const [key] = await migrated.query(`SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'webhook_events'::regclass AND contype = 'p'`);
      expect(key.definition).toBe('PRIMARY KEY (id)');
      const rows = await migrated.query('SELECT id, tableoid::regclass::text AS partition FROM webhook_events ORDER BY id');
      const byId = [...seeded].sort((a, b) => (a.eventId < b.eventId ? -1 : 1));
      expect(rows).toEqual(byId.map((s) => ({ id: s.eventId, partition: partitionName(EVENTS_TABLE, spanStart(s.time)) })));
      // Partitions ahead of today, so new events do not land in the default partition.
      expect((await migrated.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [partitionName(EVENTS_TABLE, spanStart(Date.now() + DAY))]))[0].found).toBe(true);
      expect(await migrated.query('SELECT count(*)::int AS n FROM webhook_events_default')).toEqual([{ n: 0 }]);
    } finally {
      await migrated.destroy();
    }

    plaza = await startTestPlaza({ DATABASE_URL: url, RUN_WORKER: 'false' });
    const admin = await plaza.signIn(ADMIN_EMAIL);
    for (const s of seeded) {
      const { webhookDelivery } = await admin.ok<{ webhookDelivery: any }>('query($id: ID!) { webhookDelivery(id: $id) { id payload payloadKept status } }', { id: s.deliveryId });
      expect(webhookDelivery).toEqual({ id: s.deliveryId, payload: s.payload, payloadKept: true, status: s.status });
    }
    const list = await admin.ok<{ webhookDeliveries: any }>('query { webhookDeliveries(first: 10) { edges { node { id payload } } } }');
    expect(list.webhookDeliveries.edges.map((e: any) => e.node)).toEqual(
      [...seeded].sort((a, b) => (a.deliveryId < b.deliveryId ? 1 : -1)).map((s) => ({ id: s.deliveryId, payload: s.payload })),
    );
    // recordEvent's INSERT goes on working, into today's partition.
    const fresh = await emitEvent(plaza, appId);
    const [row] = await plaza.services.db.query('SELECT payload, tableoid::regclass::text AS partition FROM webhook_events WHERE id = $1', [fresh.eventId]);
    expect(row).toEqual({ payload: fresh.payloadText, partition: partitionName(EVENTS_TABLE, spanStart(Date.now())) });
  });
});
