import { afterAll, describe, expect, it } from 'vitest';
import { decodeEncryptionKey } from '../src/config.js';
import { webhookPayload } from '../src/modules/webhooks/webhook-events.service.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { sealSecret } from '../src/platform/secret-crypto.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, TEST_ENCRYPTION_KEY, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { isFinal, waitForDelivery } from './helpers/webhooks.js';

const FIRST = 'WebhookEndpoints1796000028000';
/** More than one backfill batch (5,000), so the walk along the key is what is under test. */
const BULK = 12_345;

const APPS = {
  // A Webhook URL with two of the four events, disabled after failures, with a failure run on record.
  chosen: 'app_01KENDPOINTSMIGRATE0000A',
  // A Webhook URL receiving everything: a pending delivery, and the bulk of the history.
  everything: 'app_01KENDPOINTSMIGRATE0000B',
  // No Webhook URL any more, but deliveries from when it had one.
  removed: 'app_01KENDPOINTSMIGRATE0000C',
};
const endpointOf = (appId: string) => `ep_${appId.slice('app_'.length)}`;

const DELIVERY = 'query($id: ID!) { webhookDelivery(id: $id) { id appId endpointId endpoint { id url } eventName purchaseId payload status } }';
const ENDPOINTS = 'query($id: ID!) { app(id: $id) { webhookUrl webhookEvents webhookState webhookEndpoints { id url events state } } }';

describe('migrations 1796000028000-28500 (endpoints) on a populated database', () => {
  let plaza: TestPlaza | undefined;

  afterAll(async () => {
    await plaza?.stop();
  });

  it('makes each app’s Webhook URL its first endpoint and gives every delivery its endpoint, in batches; what a previous release records gets one too; every delivery reads back as before', async () => {
    const url = await createTestDatabase();
    const receiver = await WebhookReceiver.start(() => ({ status: 200 }));
    const old = await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex(FIRST)));
    const app = (id: string, webhookUrl: string | null, events: string, state: string) =>
      old.query(
        `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, webhook_events, webhook_state, status, submitted_at, review_due_at)
         VALUES ($1, 'dev_owner', $1, 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', $2, $3, $4, 'APPROVED', now(), now())`,
        [id, webhookUrl, events, state],
      );
    await app(APPS.chosen, 'https://hooks.example.com/chosen', '{APP_PURCHASED,APP_REFUNDED}', 'DISABLED');
    await app(APPS.everything, receiver.url('/everything'), '{APP_PURCHASED,APP_INSTALLED,APP_UNINSTALLED,APP_REFUNDED}', 'ENABLED');
    await app(APPS.removed, null, '{APP_PURCHASED,APP_INSTALLED,APP_UNINSTALLED,APP_REFUNDED}', 'ENABLED');
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    for (const appId of Object.values(APPS)) {
      const sealed = sealSecret(secret, appId, decodeEncryptionKey(TEST_ENCRYPTION_KEY, 'SECRET_ENCRYPTION_KEY'));
      await old.query(`INSERT INTO client_secrets (app_id, key_id, ciphertext, created_at) VALUES ($1, $2, $3, now())`, [appId, sealed.keyId, sealed.ciphertext]);
    }
    await old.query(
      `INSERT INTO webhook_health (app_id, failing_since, last_failure_at, last_error, failed_deliveries) VALUES ($1, now() - interval '6 days', now(), 'HTTP 503', 4)`,
      [APPS.chosen],
    );

    // Deliveries with their bodies, one per app and state, as the previous release recorded them.
    const seeded = (
      [
        [APPS.chosen, 'FAILED'],
        [APPS.everything, 'SUCCEEDED'],
        [APPS.everything, 'PENDING'],
        [APPS.removed, 'SUCCEEDED'],
      ] as const
    ).map(([appId, status], k) => {
      const time = Date.now() - (10 - k) * 60_000;
      const purchaseId = newPurchaseId(time);
      const payload = webhookPayload(
        { type: WebhookEventType.APP_PURCHASED, appId, userId: `usr_Lê_${k}`, purchaseId, amountVnd: 10_000, developerShareVnd: 8_000 },
        new Date(time),
      );
      return { appId, status, purchaseId, payload, deliveryId: newWebhookId.delivery(time), eventId: newWebhookId.event(time), time };
    });
    for (const s of seeded) {
      await old.query('INSERT INTO webhook_events (id, payload) VALUES ($1, $2)', [s.eventId, s.payload]);
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, $5, $6, $6, $7, $8, $8)`,
        [s.deliveryId, s.eventId, s.appId, s.purchaseId, s.status, s.status === 'PENDING' ? 0 : 1, s.status === 'PENDING' ? new Date() : null, new Date(s.time)],
      );
    }
    // The bulk: settled deliveries of long ago (their bodies gone), keys in time order before the seeded ones.
    await old.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT 'dlv_01HBULK' || lpad(i::text, 19, '0'), 'evt_01HBULK' || lpad(i::text, 19, '0'), $1, 'app.installed', 'APP-1700000000000-BULK' || i, 'SUCCEEDED', 1, 1, NULL, now(), now()
         FROM generate_series(1, ${BULK}) i`,
      [APPS.everything],
    );
    await old.destroy();

    const migrated = await migratedDataSource(url, MIGRATIONS);
    try {
      expect(await migrated.query('SELECT id, app_id, url, events, state FROM webhook_endpoints ORDER BY id')).toEqual([
        { id: endpointOf(APPS.chosen), app_id: APPS.chosen, url: 'https://hooks.example.com/chosen', events: ['APP_PURCHASED', 'APP_REFUNDED'], state: 'DISABLED' },
        { id: endpointOf(APPS.everything), app_id: APPS.everything, url: receiver.url('/everything'), events: null, state: 'ENABLED' },
      ]);
      const byEndpoint = await migrated.query('SELECT app_id, endpoint_id, count(*)::int AS n FROM webhook_deliveries GROUP BY 1, 2 ORDER BY 1');
      expect(byEndpoint).toEqual([
        { app_id: APPS.chosen, endpoint_id: endpointOf(APPS.chosen), n: 1 },
        { app_id: APPS.everything, endpoint_id: endpointOf(APPS.everything), n: BULK + 2 },
        { app_id: APPS.removed, endpoint_id: endpointOf(APPS.removed), n: 1 },
      ]);
      expect(await migrated.query('SELECT endpoint_id, app_id, last_error, failed_deliveries FROM webhook_endpoint_health')).toEqual([
        { endpoint_id: endpointOf(APPS.chosen), app_id: APPS.chosen, last_error: 'HTTP 503', failed_deliveries: 4 },
      ]);
      // A previous release's API, still running during the upgrade, records a delivery without an endpoint: it gets the app's first.
      await migrated.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         VALUES ('dlv_01KOLDRELEASE000000000000', 'evt_01KOLDRELEASE000000000000', $1, 'app.purchased', 'APP-1800000000000-OLDREL', 'SUCCEEDED', 1, 1, NULL, now(), now())`,
        [APPS.chosen],
      );
      expect(await migrated.query(`SELECT endpoint_id FROM webhook_deliveries WHERE id = 'dlv_01KOLDRELEASE000000000000'`)).toEqual([{ endpoint_id: endpointOf(APPS.chosen) }]);
    } finally {
      await migrated.destroy();
    }

    plaza = await startTestPlaza({ DATABASE_URL: url });
    const admin = await plaza.signIn(ADMIN_EMAIL);
    for (const s of seeded.filter((s) => s.status !== 'PENDING')) {
      const { webhookDelivery } = await admin.ok<{ webhookDelivery: any }>(DELIVERY, { id: s.deliveryId });
      expect(webhookDelivery).toEqual({
        id: s.deliveryId,
        appId: s.appId,
        endpointId: endpointOf(s.appId),
        // The app without a Webhook URL has no endpoint left: its deliveries read as a deleted endpoint's.
        endpoint: s.appId === APPS.removed ? null : { id: endpointOf(s.appId), url: s.appId === APPS.chosen ? 'https://hooks.example.com/chosen' : receiver.url('/everything') },
        eventName: 'app.purchased',
        purchaseId: s.purchaseId,
        payload: s.payload,
        status: s.status,
      });
    }
    // The app-level names read the same as before the migration (reviewers see every app's endpoints).
    const reviewerView = await plaza.signIn(REVIEWER_EMAIL);
    expect((await reviewerView.ok<{ app: any }>(ENDPOINTS, { id: APPS.chosen })).app).toEqual({
      webhookUrl: 'https://hooks.example.com/chosen',
      webhookEvents: ['APP_PURCHASED', 'APP_REFUNDED'],
      webhookState: 'DISABLED',
      webhookEndpoints: [{ id: endpointOf(APPS.chosen), url: 'https://hooks.example.com/chosen', events: ['APP_PURCHASED', 'APP_REFUNDED'], state: 'DISABLED' }],
    });
    // The delivery that was due when the database was migrated goes to its endpoint, once.
    const pending = seeded.find((s) => s.status === 'PENDING')!;
    expect(await waitForDelivery(admin, pending.deliveryId, isFinal, 30_000)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, payload: pending.payload });
    expect(receiver.requests.filter((r) => r.headers['webhook-id'] === pending.deliveryId)).toHaveLength(1);
    // The log's endpoint filter sees the whole migrated history.
    const page = await admin.ok<{ webhookDeliveries: { edges: unknown[]; pageInfo: { hasNextPage: boolean } } }>(
      'query($endpointId: ID!) { webhookDeliveries(filter: { endpointId: $endpointId }, first: 100) { edges { node { id } } pageInfo { hasNextPage } } }',
      { endpointId: endpointOf(APPS.everything) },
    );
    expect(page.webhookDeliveries.edges).toHaveLength(100);
    expect(page.webhookDeliveries.pageInfo.hasNextPage).toBe(true);
  });

  it('is undone: the endpoints, their health and the deliveries’ endpoint go, the trigger with them; the apps keep their Webhook URLs', async () => {
    const url = await createTestDatabase();
    const db = await migratedDataSource(url, MIGRATIONS);
    try {
      await db.query(
        `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
         VALUES ($1, 'dev_owner', 'Undo', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', 'https://hooks.example.com/undo', 'APPROVED', now(), now())`,
        [APPS.everything],
      );
      await db.query(`INSERT INTO webhook_endpoints (id, app_id, url, state, created_at, updated_at) VALUES ($1, $2, 'https://hooks.example.com/undo', 'ENABLED', now(), now())`, [
        endpointOf(APPS.everything),
        APPS.everything,
      ]);
      // The later migrations, the backfill (nothing to undo), then the expand; the per-endpoint queue index (built after the migrations) goes with its column.
      for (let i = migrationIndex(FIRST); i < MIGRATIONS.length; i += 1) await db.undoLastMigration({ transaction: 'each' });
      expect(await db.query(`SELECT to_regclass('idx_webhook_deliveries_endpoint_queue') AS index`)).toEqual([{ index: null }]);
      const tables = await db.query(`SELECT to_regclass('webhook_endpoints') AS endpoints, to_regclass('webhook_endpoint_health') AS health`);
      expect(tables).toEqual([{ endpoints: null, health: null }]);
      expect(await db.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'webhook_deliveries' AND column_name = 'endpoint_id'`)).toEqual([
        { n: 0 },
      ]);
      expect(await db.query(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'plaza_delivery_endpoint'`)).toEqual([{ n: 0 }]);
      expect(await db.query('SELECT webhook_url FROM apps WHERE id = $1', [APPS.everything])).toEqual([{ webhook_url: 'https://hooks.example.com/undo' }]);
    } finally {
      await db.destroy();
    }
  });
});
