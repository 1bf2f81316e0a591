import { afterAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { decodeEncryptionKey } from '../src/config.js';
import { EVENTS_TABLE } from '../src/modules/webhooks/body-retention.js';
import { webhookPayload } from '../src/modules/webhooks/webhook-events.service.js';
import { platformSignature } from '../src/modules/webhooks/webhook-signing.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { sealSecret } from '../src/platform/secret-crypto.js';
import { ensurePartitions } from '../src/platform/time-partitions.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import { ADMIN_EMAIL, startTestPlaza, TEST_ENCRYPTION_KEY, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

const DAY = 86_400_000;
const MINE = 'EventBodiesOnly1796000026500';

/** The columns of `table` (a partition or the parent) in order, dropped ones left out. */
const columnsOf = async (db: DataSource, table: string) =>
  (
    (await db.query(`SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, [table])) as {
      attname: string;
    }[]
  ).map((c) => c.attname);

describe('migration 1796000026500 (webhook_events keeps the id and the body) on a populated database', () => {
  let plaza: TestPlaza | undefined;

  afterAll(async () => {
    await plaza?.stop();
  });

  it('drops the columns the body, the delivery and the id already hold; every body reads back byte-identical through the API, a migrated pending delivery and a new event are sent with their exact bodies', async () => {
    const url = await createTestDatabase();
    const receiver = await WebhookReceiver.start(() => ({ status: 200 }));
    // The schema just before this migration: webhook_events partitioned by week, with all seven columns.
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await migratedDataSource(url, MIGRATIONS.slice(0, mine));
    // A database that has run for three weeks: a partition per week (an older event lands in the default partition).
    await ensurePartitions(old, EVENTS_TABLE, Date.now() - 21 * DAY, Date.now());

    const appId = 'app_01KMIGRATIONBODIES00000A';
    const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    await old.query(
      `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
       VALUES ($1, 'dev_owner', 'Migrated', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', $2, 'APPROVED', now(), now())`,
      [appId, receiver.url()],
    );
    const sealed = sealSecret(secret, appId, decodeEncryptionKey(TEST_ENCRYPTION_KEY, 'SECRET_ENCRYPTION_KEY'));
    await old.query(`INSERT INTO client_secrets (app_id, key_id, ciphertext, created_at) VALUES ($1, $2, $3, now())`, [appId, sealed.keyId, sealed.ciphertext]);

    // Events as recordEvent wrote them until now, of every age and state; bodies with non-ASCII text, byte for byte.
    const seeded = (
      [
        [60, 'SUCCEEDED', WebhookEventType.APP_PURCHASED],
        [15, 'FAILED', WebhookEventType.APP_REFUNDED],
        [8, 'SUCCEEDED', WebhookEventType.APP_INSTALLED],
        [2, 'SUCCEEDED', WebhookEventType.APP_UNINSTALLED],
        [1, 'PENDING', WebhookEventType.APP_PURCHASED],
      ] as const
    ).map(([daysAgo, status, type], k) => {
      const time = Date.now() - daysAgo * DAY - k * 1000;
      const purchaseId = newPurchaseId(time);
      const facts = { type, appId, userId: `usr_Nguyễn_Văn_${k}_✓`, purchaseId, amountVnd: 120_000 * k, developerShareVnd: 96_000 * k };
      return { deliveryId: newWebhookId.delivery(time), eventId: newWebhookId.event(time), time, type, purchaseId, status, payload: webhookPayload(facts, new Date(time)) };
    });
    for (const s of seeded) {
      const wire = JSON.parse(s.payload).event as string;
      await old.query(`INSERT INTO webhook_events (id, type, app_id, user_id, purchase_id, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        s.eventId,
        wire,
        appId,
        JSON.parse(s.payload).user_id,
        s.purchaseId,
        s.payload,
        new Date(s.time),
      ]);
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $9)`,
        [s.deliveryId, s.eventId, appId, wire, s.purchaseId, s.status, s.status === 'PENDING' ? 0 : 1, s.status === 'PENDING' ? new Date() : null, new Date(s.time)],
      );
    }
    const partitions = (await old.query(`SELECT relid::text AS name FROM pg_partition_tree('webhook_events') WHERE isleaf`)).map((p: { name: string }) => p.name) as string[];
    expect(partitions.length).toBeGreaterThan(3);
    await old.destroy();

    const migrated = await migratedDataSource(url, MIGRATIONS);
    try {
      // The parent and every partition made before (whose rows keep the old layout) have the id and the body alone.
      for (const table of ['webhook_events', ...partitions]) expect(await columnsOf(migrated, table), table).toEqual(['id', 'payload']);
      const rows = await migrated.query(`SELECT id, convert_to(payload, 'UTF8') AS bytes FROM webhook_events ORDER BY id`);
      expect(rows).toEqual([...seeded].sort((a, b) => (a.eventId < b.eventId ? -1 : 1)).map((s) => ({ id: s.eventId, bytes: Buffer.from(s.payload, 'utf8') })));
    } finally {
      await migrated.destroy();
    }

    plaza = await startTestPlaza({ DATABASE_URL: url });
    const admin = await plaza.signIn(ADMIN_EMAIL);
    for (const s of seeded.filter((s) => s.status !== 'PENDING')) {
      const { webhookDelivery } = await admin.ok<{ webhookDelivery: any }>('query($id: ID!) { webhookDelivery(id: $id) { id eventName purchaseId payload payloadKept status } }', {
        id: s.deliveryId,
      });
      expect(webhookDelivery).toEqual({
        id: s.deliveryId,
        eventName: JSON.parse(s.payload).event,
        purchaseId: s.purchaseId,
        payload: s.payload,
        payloadKept: true,
        status: s.status,
      });
      expect(Buffer.from(webhookDelivery.payload, 'utf8').equals(Buffer.from(s.payload, 'utf8'))).toBe(true);
    }
    const list = await admin.ok<{ webhookDeliveries: any }>('query { webhookDeliveries(first: 10) { edges { node { id payload } } } }');
    expect(list.webhookDeliveries.edges.map((e: any) => e.node)).toEqual(
      [...seeded].sort((a, b) => (a.deliveryId < b.deliveryId ? 1 : -1)).map((s) => ({ id: s.deliveryId, payload: s.payload })),
    );

    // The delivery that was due when the database was migrated goes out with its body exactly, signed over those bytes.
    const pending = seeded.find((s) => s.status === 'PENDING')!;
    expect(await waitForDelivery(admin, pending.deliveryId, isFinal, 30_000)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, payload: pending.payload });
    const sent = receiver.requests.filter((r) => r.rawBody.equals(Buffer.from(pending.payload, 'utf8')));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['x-platform-signature']).toBe(platformSignature(secret, Buffer.from(pending.payload, 'utf8')));

    // recordEvent's one statement writes the narrow row, and the event is sent as before.
    const fresh = await emitEvent(plaza, appId, { type: WebhookEventType.APP_PURCHASED, userId: 'usr_Trần_✓' });
    expect(await waitForDelivery(admin, fresh.id, isFinal, 30_000)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, payload: fresh.payloadText, eventName: 'app.purchased' });
    expect(await plaza.services.db.query('SELECT * FROM webhook_events WHERE id = $1', [fresh.eventId])).toEqual([{ id: fresh.eventId, payload: fresh.payloadText }]);
    expect(receiver.requests.filter((r) => r.rawBody.equals(Buffer.from(fresh.payloadText!, 'utf8')))).toHaveLength(1);
  });

  it('puts the columns back when undone, with the values the deliveries and the bodies hold', async () => {
    const url = await createTestDatabase();
    // Up to this migration, so that it is the last one to undo.
    const db = await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex(MINE) + 1));
    try {
      const time = Date.now() - 3 * DAY;
      const eventId = newWebhookId.event(time);
      const purchaseId = newPurchaseId(time);
      const payload = webhookPayload(
        { type: WebhookEventType.APP_PURCHASED, appId: 'app_X', userId: 'usr_Lê_✓', purchaseId, amountVnd: 1000, developerShareVnd: 800 },
        new Date(time),
      );
      await db.query(`INSERT INTO webhook_events (id, payload) VALUES ($1, $2)`, [eventId, payload]);
      await db.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
         VALUES ($1, $2, 'app_X', 'app.purchased', $3, 'SUCCEEDED', 1, 1, $4, $4)`,
        [newWebhookId.delivery(time), eventId, purchaseId, new Date(time)],
      );
      await db.undoLastMigration({ transaction: 'each' });
      expect(await db.query(`SELECT id, type, app_id, user_id, purchase_id, payload, created_at FROM webhook_events`)).toEqual([
        { id: eventId, type: 'app.purchased', app_id: 'app_X', user_id: 'usr_Lê_✓', purchase_id: purchaseId, payload, created_at: new Date(time) },
      ]);
      const notNull = await db.query(
        `SELECT attname FROM pg_attribute WHERE attrelid = 'webhook_events'::regclass AND attnum > 0 AND NOT attisdropped AND attnotnull ORDER BY attname`,
      );
      expect(notNull.map((c: { attname: string }) => c.attname)).toEqual(['app_id', 'created_at', 'id', 'payload', 'purchase_id', 'type', 'user_id']);
    } finally {
      await db.destroy();
    }
  });
});
