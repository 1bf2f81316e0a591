import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { webhookHeaders } from '../src/modules/webhooks/webhook-signing.js';
import { splitHeaders } from '../src/modules/webhooks/delivery/request-headers.js';
import { attemptHeaders, expectedForDeliveryOnce, expectedOnce, headersAsSent, sharedHeaders } from '../src/modules/webhooks/delivery/request-headers-sql.js';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { createTestDatabase } from './helpers/database.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { DELIVERY, emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

/** Every header Plaza sets on a webhook request (webhook-signing.ts), a test event's marker aside. */
const SENT_NAMES = [
  'content-type',
  'user-agent',
  'x-platform-signature',
  'x-platform-event',
  'x-platform-delivery',
  'x-platform-attempt',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

const asMap = (headers: { name: string; value: string }[]) => Object.fromEntries(headers.map((h) => [h.name, h.value]));

/** The headers a receiver got, limited to `names` (Node adds host, content-length and connection of its own). */
const received = (headers: Record<string, unknown>, names: string[]) => Object.fromEntries(names.map((name) => [name, headers[name]]));

describe('request headers, kept once per delivery', () => {
  let plaza: TestPlaza;
  let developer: GraphQLTestClient;

  beforeAll(async () => {
    plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms', WEBHOOK_TIMEOUT: '2s' });
    developer = await plaza.signIn('headers@studio.test');
  });

  it('read back exactly as sent on every attempt, scheduled and manual, while each attempt stores only its timestamped signature', async () => {
    const receiver = await WebhookReceiver.start((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    await developer.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: delivery.id });
    const requests = await receiver.waitForRequests(3);
    const logged = await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 3 && d.attempts.every((a: any) => a.finished));

    expect(logged.attempts.map((a: any) => a.trigger)).toEqual(['SCHEDULED', 'SCHEDULED', 'MANUAL']);
    for (const [i, attempt] of logged.attempts.entries()) {
      const headers = asMap(attempt.requestHeaders);
      expect(Object.keys(headers).sort()).toEqual([...SENT_NAMES].sort());
      expect(headers).toEqual(received(requests[i]!.headers, SENT_NAMES));
      expect(headers['x-platform-attempt']).toBe(String(i + 1));
    }

    // Stored: the body signature and event once for the delivery; per attempt, its timestamped signature alone.
    const [shared] = await plaza.services.db.query('SELECT headers FROM webhook_request_headers WHERE delivery_id = $1', [delivery.id]);
    expect(shared.headers).toEqual({ 'x-platform-signature': requests[0]!.headers['x-platform-signature'], 'x-platform-event': 'app.purchased' });
    const kept = await plaza.services.db.query('SELECT request_headers FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number', [delivery.id]);
    expect(kept.map((row: any) => row.request_headers)).toEqual(requests.map((request) => ({ 'webhook-signature': request.headers['webhook-signature'] })));
  });

  it('are split by the worker exactly as the database would, for usual and unusual headers, and read back as sent', async () => {
    const { db } = plaza.services;
    const deliveryId = newWebhookId.delivery(Date.now());
    const startedAt = new Date(Date.now() - 1234);
    const signed = (extra: { previousSecret?: string } = {}) =>
      webhookHeaders({
        deliveryId,
        eventName: 'app.refunded',
        attemptNumber: 2,
        body: '{"a":1}',
        clientSecret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
        now: startedAt,
        ...extra,
      });
    const variants: Record<string, Record<string, string>> = {
      usual: signed(),
      'rotation overlap': signed({ previousSecret: `whsec_${Buffer.alloc(32, 2).toString('base64')}` }),
      'test event': { ...signed(), 'x-platform-test': 'true' },
      'unusual: no user agent, one more header, another second': (({ 'user-agent': _dropped, ...rest }) => ({ ...rest, 'x-more': '1', 'webhook-timestamp': '17' }))(signed()),
    };
    for (const [name, headers] of Object.entries(variants)) {
      const { shared, kept } = splitHeaders(headers, deliveryId, 2, startedAt);
      const [sql] = await db.query(`SELECT ${sharedHeaders('$1::jsonb', 'x.expected')} AS shared FROM ${expectedForDeliveryOnce('x', '$2::text')}`, [headers, deliveryId]);
      expect(shared, name).toEqual(sql.shared);
      const [own] = await db.query(`SELECT ${attemptHeaders('$1::jsonb', 'x.expected')} AS kept FROM ${expectedOnce('x', '$2::jsonb', '$3::text', '$4::int', '$5::timestamptz')}`, [
        headers,
        shared,
        deliveryId,
        2,
        startedAt,
      ]);
      expect(kept, name).toEqual(own.kept);
      const [read] = await db.query(`SELECT ${headersAsSent('$1::jsonb', '$2::jsonb', '$3::text', '$4::int', '$5::timestamptz')} AS sent`, [
        kept,
        shared,
        deliveryId,
        2,
        startedAt,
      ]);
      expect(read.sent, name).toEqual(headers);
    }
    expect(splitHeaders(variants.usual!, deliveryId, 2, startedAt)).toEqual({
      shared: { 'x-platform-signature': variants.usual!['x-platform-signature'], 'x-platform-event': 'app.refunded' },
      kept: { 'webhook-signature': variants.usual!['webhook-signature'] },
    });
  });

  it('read back a test event’s marker header as sent', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const { sendTestWebhook } = await developer.ok<{ sendTestWebhook: { id: string } }>('mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }', { appId: app.id });
    const [request] = await receiver.waitForRequests(1);
    const logged = await waitForDelivery(developer, sendTestWebhook.id, isFinal);
    const names = [...SENT_NAMES, 'x-platform-test'];
    expect(asMap(logged.attempts[0].requestHeaders)).toEqual(received(request.headers, names));
    expect(request.headers['x-platform-test']).toBe('true');
  });
});

describe('request headers across a secret rotation', () => {
  it('read back as sent when a retry is signed with another secret than the first attempt', async () => {
    // Retries far enough apart that the rotation lands between the first attempt and the second.
    const plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '3s,3s,3s,3s,3s', WEBHOOK_TIMEOUT: '2s' });
    const developer = await plaza.signIn('rotating@studio.test');
    const receiver = await WebhookReceiver.start(() => ({ status: 500 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 1 && d.attempts[0].finished);
    await developer.ok('mutation($appId: ID!) { rotateClientSecret(appId: $appId, overlapHours: 0) { value } }', { appId: app.id });
    const requests = await receiver.waitForRequests(2, 15_000);
    const logged = await waitForDelivery(developer, delivery.id, (d) => d.attempts.length >= 2 && d.attempts[1].finished, 15_000);

    expect(requests[1]!.headers['x-platform-signature']).not.toBe(requests[0]!.headers['x-platform-signature']);
    for (const i of [0, 1]) expect(asMap(logged.attempts[i].requestHeaders)).toEqual(received(requests[i]!.headers, SENT_NAMES));
    // The second attempt keeps the body signature that differs from the shared one, beside its own.
    const [second] = await plaza.services.db.query('SELECT request_headers FROM webhook_attempts WHERE delivery_id = $1 AND number = 2', [delivery.id]);
    expect(second.request_headers).toEqual({
      'x-platform-signature': requests[1]!.headers['x-platform-signature'],
      'webhook-signature': requests[1]!.headers['webhook-signature'],
    });
  });
});

describe('migration 1796000019000 on a populated database', () => {
  const MINE = 'DeliveryHeadersOnce1796000019000';
  let url: string;
  let plaza: TestPlaza | undefined;

  const migrate = async (migrations: typeof MIGRATIONS) => {
    const dataSource = new DataSource({ type: 'postgres', url, migrations, migrationsTableName: 'schema_migrations' });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      return dataSource;
    } catch (err) {
      await dataSource.destroy();
      throw err;
    }
  };

  afterAll(async () => {
    await plaza?.stop();
  });

  it('carries every attempt’s headers over exactly, narrows the attempts, and the log lists the same deliveries', async () => {
    url = await createTestDatabase();
    const before = MIGRATIONS.filter((m) => new m().name !== MINE);
    expect(before).toHaveLength(MIGRATIONS.length - 1);
    const old = await migrate(before);

    // Today's shape: full headers on every attempt, as the engine wrote them until now.
    const appId = 'app_01KMIGRATIONHEADERS00000A';
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
    await old.query(
      `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
       VALUES ($1, 'dev_owner', 'Migrated', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', 'https://hooks.example/plaza', 'APPROVED', now(), now())`,
      [appId],
    );
    const base = Date.UTC(2026, 10, 1, 12, 0, 0);
    type Seeded = { id: string; eventId: string; at: number; purchaseId: string };
    const deliveries = [0, 1, 2].map((k): Seeded => {
      const at = base + k * 60_000;
      return { id: newWebhookId.delivery(at), eventId: newWebhookId.event(at), at, purchaseId: newPurchaseId(at) };
    });
    for (const [k, d] of deliveries.entries()) {
      const payload = JSON.stringify({ event: 'app.purchased', app_id: appId, purchase_id: d.purchaseId, n: k });
      await old.query(`INSERT INTO webhook_events (id, type, app_id, user_id, purchase_id, payload, created_at) VALUES ($1, 'app.purchased', $2, 'usr_1', $3, $4, $5)`, [
        d.eventId,
        appId,
        d.purchaseId,
        payload,
        new Date(d.at),
      ]);
      const status = ['SUCCEEDED', 'FAILED', 'PENDING'][k];
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, $5, $6, $6, $7, $7)`,
        [d.id, d.eventId, appId, d.purchaseId, status, [3, 4, 0][k], new Date(d.at)],
      );
    }
    const headersAt = (deliveryId: string, number: number, at: number, extra: Partial<{ previousSecret: string }> = {}) =>
      webhookHeaders({ deliveryId, eventName: 'app.purchased', attemptNumber: number, body: `body of ${deliveryId}`, clientSecret: secret, now: new Date(at), ...extra });
    const [d1, d2, d3] = deliveries as [Seeded, Seeded, Seeded];
    type OldAttempt = { deliveryId: string; number: number; startedAt: number; headers: Record<string, string> | null; finished: boolean; trigger?: string };
    const attempts: OldAttempt[] = [
      // Three ordinary attempts.
      ...[1, 2, 3].map((number) => ({
        deliveryId: d1.id,
        number,
        startedAt: d1.at + number * 5_000 + 123,
        headers: headersAt(d1.id, number, d1.at + number * 5_000 + 123),
        finished: true,
      })),
      // A rotation's overlap (two signatures, the old secret's x-platform-signature) on a test event.
      {
        deliveryId: d2.id,
        number: 1,
        startedAt: d2.at + 10,
        headers: { ...headersAt(d2.id, 1, d2.at + 10, { previousSecret: previous }), 'x-platform-test': 'true' },
        finished: true,
      },
      // Headers that say otherwise than its row: a timestamp of another second, no user agent, one header more.
      {
        deliveryId: d2.id,
        number: 2,
        startedAt: d2.at + 40_000,
        headers: (({ 'user-agent': _dropped, ...rest }) => ({ ...rest, 'webhook-timestamp': String(Math.floor(d2.at / 1000) + 7), 'x-extra': 'yes' }))(
          headersAt(d2.id, 2, d2.at + 40_000),
        ),
        finished: true,
        trigger: 'MANUAL',
      },
      // Not sent (the app's webhook was disabled), then one still in flight.
      { deliveryId: d2.id, number: 3, startedAt: d2.at + 80_000, headers: null, finished: true },
      { deliveryId: d2.id, number: 4, startedAt: d2.at + 90_000, headers: null, finished: false },
    ];
    for (const a of attempts) {
      await old.query(
        `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, response_body_excerpt, url, request_headers, finished)
         VALUES ($1, $2, $3, $4, 25, $5, $6, $7, 'https://hooks.example/plaza', $8, $9)`,
        [
          a.deliveryId,
          a.number,
          a.trigger ?? 'SCHEDULED',
          new Date(a.startedAt),
          a.finished ? 500 : null,
          a.finished ? 'HTTP 500' : null,
          a.finished ? '{"no":1}' : null,
          a.headers,
          a.finished,
        ],
      );
    }
    await old.destroy();

    const migrated = await migrate(MIGRATIONS);
    try {
      // Narrow now: an ordinary attempt keeps its timestamped signature alone; the delivery its body signature and event.
      const kept = await migrated.query('SELECT number, request_headers FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number', [d1.id]);
      expect(kept).toEqual([1, 2, 3].map((number) => ({ number, request_headers: { 'webhook-signature': attempts[number - 1]!.headers!['webhook-signature'] } })));
      const [shared] = await migrated.query('SELECT headers FROM webhook_request_headers WHERE delivery_id = $1', [d1.id]);
      expect(shared.headers).toEqual({ 'x-platform-signature': attempts[0]!.headers!['x-platform-signature'], 'x-platform-event': 'app.purchased' });
      expect(await migrated.query('SELECT count(*)::int AS n FROM webhook_request_headers')).toEqual([{ n: 2 }]);
      // The rebuilt table keeps its key and storage options.
      const [table] = await migrated.query(`SELECT reloptions FROM pg_class WHERE oid = 'webhook_attempts'::regclass`);
      expect(table.reloptions).toEqual(['fillfactor=70']);
      const [key] = await migrated.query(`SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'webhook_attempts'::regclass AND contype = 'p'`);
      expect(key.definition).toBe('PRIMARY KEY (delivery_id, number)');
    } finally {
      await migrated.destroy();
    }

    // The log, through the API, as an admin: the same deliveries, newest first, and every attempt's headers exactly as stored before.
    plaza = await startTestPlaza({ DATABASE_URL: url, RUN_WORKER: 'false' });
    const admin = await plaza.signIn(ADMIN_EMAIL);
    const list = await admin.ok<{ webhookDeliveries: any }>(`query { webhookDeliveries(first: 10) { edges { node { id status attemptCount purchaseId } } } }`);
    expect(list.webhookDeliveries.edges.map((e: any) => e.node)).toEqual(
      [d3, d2, d1].map((d, k) => ({ id: d.id, status: ['PENDING', 'FAILED', 'SUCCEEDED'][k], attemptCount: [0, 4, 3][k], purchaseId: d.purchaseId })),
    );
    for (const d of [d1, d2, d3]) {
      const logged = (await admin.ok<{ webhookDelivery: any }>(DELIVERY, { id: d.id })).webhookDelivery;
      const expected = attempts.filter((a) => a.deliveryId === d.id);
      expect(logged.attempts.map((a: any) => a.number)).toEqual(expected.map((a) => a.number));
      expect(logged.attempts.map((a: any) => asMap(a.requestHeaders))).toEqual(expected.map((a) => a.headers ?? {}));
    }
  });
});
