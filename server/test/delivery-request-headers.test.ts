import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { webhookHeaders } from '../src/modules/webhooks/webhook-signing.js';
import { compactShared, compactSignature, splitHeaders } from '../src/modules/webhooks/delivery/request-headers.js';
import { attemptHeaders, expectedOnce, headersAsSent, keptHeaders, storedShared } from '../src/modules/webhooks/delivery/request-headers-sql.js';
import { RECORD_MANUAL_ATTEMPT } from '../src/modules/webhooks/delivery/manual-and-recovery-queries.js';
import { recordAttemptsBounds } from '../src/modules/webhooks/delivery/sql-fragments.js';
import { attemptRecord } from '../src/modules/webhooks/delivery/attempt-results.js';
import { AttemptTrigger } from '../src/modules/webhooks/webhook.types.js';
import { AttemptsWrittenOnce1796000036000 } from '../src/platform/migrations/1796000036000-AttemptsWrittenOnce.js';
import type { ClaimedDelivery } from '../src/modules/webhooks/delivery/delivery-queries.js';
import type { GuardedResponse } from '../src/platform/outbound-http/guarded-http-client.js';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { DELIVERY, emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';
import { readAttempts } from '../src/modules/webhooks/delivery/attempt-reads.js';

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

    expect(logged.attempts.map((a: any) => a.url)).toEqual([receiver.url(), receiver.url(), receiver.url()]);

    // Stored: the body signature (as its 32 bytes) and URL once for the delivery, no JSON (the event is the delivery's own);
    // per attempt, its timestamped signature alone, as its 32 bytes.
    const [shared] = await plaza.services.db.query('SELECT headers, body_signature, url FROM webhook_request_headers WHERE delivery_id = $1', [delivery.id]);
    expect(shared.headers).toBeNull();
    expect('sha256=' + shared.body_signature.toString('hex')).toBe(requests[0]!.headers['x-platform-signature']);
    expect(shared.body_signature).toHaveLength(32);
    expect(shared.url).toBe(receiver.url());
    const kept = await plaza.services.db.query('SELECT request_headers, request_signature, url FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number', [delivery.id]);
    expect(kept).toEqual(
      requests.map((request) => ({
        request_headers: null,
        request_signature: Buffer.from(String(request.headers['webhook-signature']).slice('v1,'.length), 'base64'),
        url: null,
      })),
    );
    expect(kept.every((row: any) => row.request_signature.length === 32)).toBe(true);
  });

  it('are stored by a manual attempt exactly as by a scheduled one, with or without a rotation’s overlap, and the log shows each as sent', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const { db } = plaza.services;
    const storedRows = async (deliveryId: string) => ({
      shared: await db.query('SELECT headers, body_signature, url FROM webhook_request_headers WHERE delivery_id = $1', [deliveryId]),
      attempts: await db.query('SELECT number, trigger, request_headers, request_signature, url FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number', [deliveryId]),
    });
    for (const overlap of [false, true]) {
      if (overlap) await developer.ok('mutation($appId: ID!) { rotateClientSecret(appId: $appId, overlapHours: 1) { value } }', { appId: app.id });
      const scheduled = await emitEvent(plaza, app.id);
      const manual = await emitEvent(plaza, app.id);
      await waitForDelivery(developer, scheduled.id, isFinal);
      await waitForDelivery(developer, manual.id, isFinal);
      // As if its scheduled attempt had never been sent: the manual one is the first sent and stores the shared part.
      await db.query('DELETE FROM webhook_request_headers WHERE delivery_id = $1', [manual.id]);
      await db.query('DELETE FROM webhook_attempts WHERE delivery_id = $1', [manual.id]);
      await developer.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: manual.id });
      const logged = {
        scheduled: await waitForDelivery(developer, scheduled.id, (d) => d.attempts.length === 1 && d.attempts[0].finished),
        manual: await waitForDelivery(developer, manual.id, (d) => d.attempts.length === 1 && d.attempts[0].finished),
      };
      const requests = receiver.requests.filter((r) => [scheduled.id, manual.id].includes(String(r.headers['webhook-id'])));
      const sentTo = (id: string) => received(requests.filter((r) => r.headers['webhook-id'] === id).at(-1)!.headers, SENT_NAMES) as Record<string, string>;

      for (const [kind, delivery, number, trigger] of [
        ['scheduled', scheduled, 1, 'SCHEDULED'],
        ['manual', manual, 2, 'MANUAL'],
      ] as const) {
        const sent = sentTo(delivery.id);
        expect(String(sent['webhook-signature']).split(' '), kind).toHaveLength(overlap ? 2 : 1);
        // Written out, not worked out with request-headers.ts: the body signature as its bytes and the URL once for the
        // delivery; per attempt the lone signature as its bytes, a rotation overlap's two as JSON.
        expect(await storedRows(delivery.id), `${kind}, overlap ${overlap}`).toEqual({
          shared: [{ headers: null, body_signature: Buffer.from(sent['x-platform-signature']!.slice('sha256='.length), 'hex'), url: receiver.url() }],
          attempts: [
            {
              number,
              trigger,
              request_headers: overlap ? { 'webhook-signature': sent['webhook-signature'] } : null,
              request_signature: overlap ? null : Buffer.from(sent['webhook-signature']!.slice('v1,'.length), 'base64'),
              url: null,
            },
          ],
        });
        expect(asMap(logged[kind].attempts[0].requestHeaders), kind).toEqual(sent);
        expect(logged[kind].attempts[0].url, kind).toBe(receiver.url());
      }
    }
  });

  it('are split by the worker exactly as the database works an attempt’s part out again, for usual and unusual headers, and read back as sent', async () => {
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

  it('keep the usual lone signature as its 32 bytes and anything else as JSON, each read back exactly', async () => {
    const signature = (fill: number, length = 32) => `v1,${Buffer.alloc(length, fill).toString('base64')}`;
    const usual = signature(7);
    const cases: [string, Record<string, string | null>, boolean][] = [
      ['the usual lone signature', { 'webhook-signature': usual }, true],
      ['a rotation overlap’s two signatures', { 'webhook-signature': `${usual} ${signature(8)}` }, false],
      ['the signature and another header', { 'webhook-signature': usual, 'x-platform-signature': 'sha256=00' }, false],
      ['the signature and an expected header not sent', { 'webhook-signature': usual, 'user-agent': null }, false],
      // The same bytes, but this spelling would read back as another string ("...Bwc=").
      ['base64 not in its canonical form', { 'webhook-signature': `${usual.slice(0, -2)}d=` }, false],
      ['a signature of another length', { 'webhook-signature': signature(7, 31) }, false],
      ['another scheme', { 'webhook-signature': usual.replace('v1,', 'v2,') }, false],
      ['nothing', {}, false],
    ];
    for (const [name, kept, compact] of cases) {
      const bytes = compactSignature(kept);
      expect(bytes !== null, name).toBe(compact);
      // As stored (request_headers, request_signature), then read.
      const [read] = await plaza.services.db.query(`SELECT ${keptHeaders('$1::jsonb', '$2::bytea')} AS kept`, [
        compact ? null : kept,
        bytes === null ? null : Buffer.from(bytes, 'base64'),
      ]);
      expect(read.kept, name).toEqual(kept);
    }
  });

  it('keep a delivery’s usual body signature as its 32 bytes and its own event not at all, anything else as JSON, each read back exactly', async () => {
    const hex = Buffer.alloc(32, 0xab).toString('hex');
    const usual = { 'x-platform-signature': `sha256=${hex}`, 'x-platform-event': 'app.purchased' };
    const cases: [string, Record<string, string | null>, Record<string, string | null> | null, boolean][] = [
      ['the usual signature and event', usual, null, true],
      ['a test event’s marker', { ...usual, 'x-platform-test': 'true' }, { 'x-platform-test': 'true' }, true],
      ['an event other than the delivery’s', { ...usual, 'x-platform-event': 'app.refunded' }, { 'x-platform-event': 'app.refunded' }, true],
      ['no event header sent', { 'x-platform-signature': usual['x-platform-signature'] }, { 'x-platform-event': null }, true],
      ['an expected header not sent', { ...usual, 'user-agent': null }, { 'user-agent': null }, true],
      ['upper-case hex', { ...usual, 'x-platform-signature': `sha256=${hex.toUpperCase()}` }, { 'x-platform-signature': `sha256=${hex.toUpperCase()}` }, false],
      ['a signature of another length', { ...usual, 'x-platform-signature': `sha256=${hex.slice(2)}` }, { 'x-platform-signature': `sha256=${hex.slice(2)}` }, false],
      ['another scheme', { ...usual, 'x-platform-signature': `sha1=${hex}` }, { 'x-platform-signature': `sha1=${hex}` }, false],
      ['the event alone', { 'x-platform-event': 'app.purchased' }, {}, false],
      ['nothing', {}, { 'x-platform-event': null }, false],
    ];
    for (const [name, shared, json, compact] of cases) {
      const worker = compactShared(shared, 'app.purchased');
      expect(worker, name).toEqual({ headers: json, bodySignature: compact ? hex : null });
      const [read] = await plaza.services.db.query(`SELECT ${storedShared('$1::jsonb', '$2::bytea', '$3::text')} AS shared`, [
        worker.headers,
        worker.bodySignature === null ? null : Buffer.from(worker.bodySignature, 'hex'),
        'app.purchased',
      ]);
      expect(read.shared, name).toEqual(shared);
    }
    // No row: none stored.
    const [none] = await plaza.services.db.query(`SELECT ${storedShared('NULL::jsonb', 'NULL::bytea', '$1::text')} AS shared`, ['app.purchased']);
    expect(none.shared).toBeNull();
  });

  it('store a delivery’s shared headers compactly when a manual attempt is the first one sent, and read it back as sent', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    const { db } = plaza.services;
    // As if nothing had been sent yet: no shared row, and attempt 2 reserved by hand (RESERVE_MANUAL_ATTEMPT's row).
    await db.query('DELETE FROM webhook_request_headers WHERE delivery_id = $1', [delivery.id]);
    await db.query('DELETE FROM webhook_attempts WHERE delivery_id = $1', [delivery.id]);
    await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) VALUES ($1, 2, 'MANUAL', now())`, [delivery.id]);
    const startedAt = new Date(Date.now() - 500);
    const sent = webhookHeaders({
      deliveryId: delivery.id,
      eventName: 'app.purchased',
      attemptNumber: 2,
      body: '{"b":2}',
      clientSecret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
      now: startedAt,
    });
    const record = attemptRecord({
      delivery: { id: delivery.id, event_type: 'app.purchased' } as ClaimedDelivery,
      number: 2,
      trigger: AttemptTrigger.MANUAL,
      startedAt,
      url: receiver.url(),
      headers: sent,
      response: { durationMs: 30, statusCode: 200, error: null, responseBodyExcerpt: 'ok' } as GuardedResponse,
    });
    await db.query(RECORD_MANUAL_ATTEMPT, [JSON.stringify([record]), ...recordAttemptsBounds([record])]);

    const [shared] = await db.query('SELECT headers, body_signature, url FROM webhook_request_headers WHERE delivery_id = $1', [delivery.id]);
    expect(shared).toEqual({ headers: null, body_signature: Buffer.from(sent['x-platform-signature']!.slice('sha256='.length), 'hex'), url: receiver.url() });
    const [attempt] = await readAttempts(db, [delivery.id]);
    expect(attempt!.requestHeaders).toEqual(sent);
    expect(attempt!.url).toBe(receiver.url());
  });

  it('keep a rotation overlap’s two signatures as JSON (not the compact bytes) and read them back as sent', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    await developer.ok('mutation($appId: ID!) { rotateClientSecret(appId: $appId, overlapHours: 1) { value } }', { appId: app.id });
    const delivery = await emitEvent(plaza, app.id);
    const [request] = await receiver.waitForRequests(1);
    const logged = await waitForDelivery(developer, delivery.id, isFinal);

    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(asMap(logged.attempts[0].requestHeaders)).toEqual(received(request.headers, SENT_NAMES));
    const [kept] = await plaza.services.db.query('SELECT request_headers, request_signature FROM webhook_attempts WHERE delivery_id = $1', [delivery.id]);
    expect(kept).toEqual({ request_headers: { 'webhook-signature': request.headers['webhook-signature'] }, request_signature: null });
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

describe('the webhook URL, kept once per delivery', () => {
  it('reads back each attempt’s own URL when the developer changes it between attempts, scheduled and manual', async () => {
    // Retries far enough apart that the URL can change between the first attempt and the second.
    const plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '3s,3s,3s,3s,3s', WEBHOOK_TIMEOUT: '2s' });
    const developer = await plaza.signIn('moving@studio.test');
    const first = await WebhookReceiver.start(() => ({ status: 500 }));
    const second = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: first.url() });
    const moveTo = (webhookUrl: string) =>
      developer.ok('mutation($id: ID!, $webhookUrl: String!) { updateApp(id: $id, input: { webhookUrl: $webhookUrl }) { id } }', { id: app.id, webhookUrl });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 1 && d.attempts[0].finished);
    await moveTo(second.url());
    await second.waitForRequests(1, 15_000);
    await waitForDelivery(developer, delivery.id, (d) => d.status === 'SUCCEEDED' && d.attempts.length === 2 && d.attempts[1].finished, 15_000);
    // Back to the first URL, by hand: the same URL as the delivery's first attempt again.
    await moveTo(first.url());
    await developer.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: delivery.id });
    const logged = await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 3 && d.attempts.every((a: any) => a.finished), 15_000);

    expect((await first.waitForRequests(2)).length).toBe(2);
    expect(logged.attempts.map((a: any) => [a.trigger, a.url, a.statusCode])).toEqual([
      ['SCHEDULED', first.url(), 500],
      ['SCHEDULED', second.url(), 200],
      ['MANUAL', first.url(), 500],
    ]);
    // Stored once for the delivery (its first attempt's), and on an attempt only where it differs.
    const [shared] = await plaza.services.db.query('SELECT url FROM webhook_request_headers WHERE delivery_id = $1', [delivery.id]);
    expect(shared.url).toBe(first.url());
    const own = await plaza.services.db.query('SELECT url FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number', [delivery.id]);
    expect(own.map((row: any) => row.url)).toEqual([null, second.url(), null]);
  });
});

describe('migration 1796000019000 on a populated database', () => {
  const MINE = 'DeliveryHeadersOnce1796000019000';
  let url: string;
  let plaza: TestPlaza | undefined;

  const migrate = (migrations: typeof MIGRATIONS) => migratedDataSource(url, migrations);

  afterAll(async () => {
    await plaza?.stop();
  });

  it('carries every attempt’s headers over exactly, narrows the attempts, and the log lists the same deliveries', async () => {
    url = await createTestDatabase();
    // The schema as it was just before this migration; the later ones run when Plaza starts on it below.
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await migrate(MIGRATIONS.slice(0, mine));

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

    const migrated = await migrate(MIGRATIONS.slice(0, mine + 1));
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

describe('migration 1796000024000 on a populated database', () => {
  const MINE = 'NarrowAttempts1796000024000';

  it('moves every attempt’s URL and usual signature to the narrow shape, and each reads back exactly as before', async () => {
    const url = await createTestDatabase();
    const migrate = (migrations: typeof MIGRATIONS) => migratedDataSource(url, migrations);
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await migrate(MIGRATIONS.slice(0, mine));

    const appId = 'app_01KMIGRATIONNARROW000000A';
    const usualUrl = 'https://hooks.example/plaza';
    const movedUrl = 'https://elsewhere.example/hooks/plaza';
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    await old.query(
      `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
       VALUES ($1, 'dev_owner', 'Narrowed', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', $2, 'APPROVED', now(), now())`,
      [appId, usualUrl],
    );
    const base = Date.now() - 3 * 60_000;
    const [d1, d2, d3] = [0, 1, 2].map((k) => {
      const at = base + k * 60_000;
      return { id: newWebhookId.delivery(at), eventId: newWebhookId.event(at), at, purchaseId: newPurchaseId(at) };
    }) as [{ id: string; eventId: string; at: number; purchaseId: string }, ...{ id: string; eventId: string; at: number; purchaseId: string }[]];
    for (const d of [d1, d2!, d3!]) {
      await old.query(`INSERT INTO webhook_events (id, type, app_id, user_id, purchase_id, payload, created_at) VALUES ($1, 'app.purchased', $2, 'usr_1', $3, '{}', $4)`, [
        d.eventId,
        appId,
        d.purchaseId,
        new Date(d.at),
      ]);
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, 'FAILED', 1, 1, $5, $5)`,
        [d.id, d.eventId, appId, d.purchaseId, new Date(d.at)],
      );
    }
    const signed = (deliveryId: string, number: number, at: number, extra: Partial<{ previousSecret: string }> = {}) =>
      webhookHeaders({ deliveryId, eventName: 'app.purchased', attemptNumber: number, body: `body of ${deliveryId}`, clientSecret: secret, now: new Date(at), ...extra });
    type Seeded = { deliveryId: string; number: number; at: number; url: string | null; headers: Record<string, string> | null; finished?: boolean; trigger?: string };
    const attempts: Seeded[] = [
      // Usual attempts to the usual URL; the third went to another URL the developer set, the fourth (by hand) back to the first.
      { deliveryId: d1.id, number: 1, at: d1.at + 1_000, url: usualUrl, headers: signed(d1.id, 1, d1.at + 1_000) },
      { deliveryId: d1.id, number: 2, at: d1.at + 5_000, url: usualUrl, headers: signed(d1.id, 2, d1.at + 5_000) },
      { deliveryId: d1.id, number: 3, at: d1.at + 9_000, url: movedUrl, headers: signed(d1.id, 3, d1.at + 9_000) },
      { deliveryId: d1.id, number: 4, at: d1.at + 20_000, url: usualUrl, headers: signed(d1.id, 4, d1.at + 20_000), trigger: 'MANUAL' },
      // A rotation's overlap on a test event (two signatures), then headers that say otherwise than the row: both stay JSON.
      {
        deliveryId: d2!.id,
        number: 1,
        at: d2!.at + 10,
        url: usualUrl,
        headers: { ...signed(d2!.id, 1, d2!.at + 10, { previousSecret: `whsec_${Buffer.alloc(32, 6).toString('base64')}` }), 'x-platform-test': 'true' },
      },
      {
        deliveryId: d2!.id,
        number: 2,
        at: d2!.at + 4_000,
        url: usualUrl,
        headers: (({ 'user-agent': _dropped, ...rest }) => ({ ...rest, 'x-extra': 'yes' }))(signed(d2!.id, 2, d2!.at + 4_000)),
      },
      // Not sent (disabled: no URL), not prepared (its URL, no headers), and one still in flight.
      { deliveryId: d2!.id, number: 3, at: d2!.at + 8_000, url: null, headers: null },
      { deliveryId: d2!.id, number: 4, at: d2!.at + 12_000, url: usualUrl, headers: null },
      { deliveryId: d2!.id, number: 5, at: d2!.at + 16_000, url: null, headers: null, finished: false },
    ];
    // Stored as the engine stored them until now: the shared part once per delivery (its first attempt sent's), each attempt what differs.
    for (const d of [d1, d2!]) {
      const firstSent = attempts.find((a) => a.deliveryId === d.id && a.headers)!;
      // The shared part depends on the delivery and the headers alone, not on the attempt's number or start.
      await old.query('INSERT INTO webhook_request_headers (delivery_id, headers) VALUES ($1, $2)', [d.id, splitHeaders(firstSent.headers!, d.id, 1, new Date()).shared]);
    }
    for (const a of attempts) {
      await old.query(
        `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, url, request_headers, finished)
         SELECT $1, $2, $3, $4::timestamptz, 25, 500, 'HTTP 500', $5, ${attemptHeaders('$6::jsonb', 'x.expected')}, $7
           FROM ${expectedOnce('x', '(SELECT headers FROM webhook_request_headers WHERE delivery_id = $1)', '$1::text', '$2::int', '$4::timestamptz')}`,
        [a.deliveryId, a.number, a.trigger ?? 'SCHEDULED', new Date(a.at), a.url, a.headers, a.finished ?? true],
      );
    }
    const readBack = async (db: DataSource) =>
      (await readAttempts(db, [d1.id, d2!.id, d3!.id])).map((a) => ({ deliveryId: a.deliveryId, number: a.number, url: a.url, headers: a.requestHeaders }));
    const asSeeded = attempts.map((a) => ({ deliveryId: a.deliveryId, number: a.number, url: a.url, headers: a.headers }));
    await old.destroy();

    const migrated = await migrate(MIGRATIONS);
    try {
      // Narrow now: the usual signature as bytes, the URL on an attempt only where it differs from its delivery's.
      const stored = await migrated.query(
        `SELECT delivery_id, number, url, request_headers IS NOT NULL AS json, octet_length(request_signature) AS signature_bytes
           FROM webhook_attempts ORDER BY delivery_id, number`,
      );
      expect(stored.map((r: any) => [r.number, r.url, r.json, r.signature_bytes])).toEqual([
        [1, null, false, 32],
        [2, null, false, 32],
        [3, movedUrl, false, 32],
        [4, null, false, 32],
        [1, null, true, null],
        [2, null, true, null],
        [3, null, false, null],
        [4, usualUrl, false, null],
        [5, null, false, null],
      ]);
      expect(await migrated.query('SELECT delivery_id, url FROM webhook_request_headers ORDER BY delivery_id')).toEqual([
        { delivery_id: d1.id, url: usualUrl },
        { delivery_id: d2!.id, url: usualUrl },
      ]);
      // Every attempt's URL and headers read back exactly as they were sent.
      expect(await readBack(migrated)).toEqual(asSeeded);
    } finally {
      await migrated.destroy();
    }
  });
});

describe('migration 1796000027000 on a populated database', () => {
  const MINE = 'CompactSharedHeaders1796000027000';

  it('moves every delivery’s shared headers to the compact shape, each attempt reads back exactly as sent, and down gives the JSON back', async () => {
    const url = await createTestDatabase();
    const dataSource = (migrations: typeof MIGRATIONS) => migratedDataSource(url, migrations);
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await dataSource(MIGRATIONS.slice(0, mine));

    const appId = 'app_01KMIGRATIONSHARED000000A';
    const hookUrl = 'https://hooks.example/plaza';
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const base = Date.now() - 5 * 60_000;
    const ids = [0, 1, 2, 3, 4].map((k) => newWebhookId.delivery(base + k * 60_000));
    const [usual, marked, otherEvent, unusual, orphan] = ids as [string, string, string, string, string];
    // No delivery row for the orphan: its shared headers stay as they are but for the signature's bytes.
    for (const id of [usual, marked, otherEvent, unusual]) {
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, 'FAILED', 2, 2, now(), now())`,
        [id, newWebhookId.event(base), appId, newPurchaseId(base)],
      );
    }
    const signed = (deliveryId: string, number: number, at: number, extra: Partial<{ previousSecret: string }> = {}) =>
      webhookHeaders({ deliveryId, eventName: 'app.purchased', attemptNumber: number, body: `body of ${deliveryId}`, clientSecret: secret, now: new Date(at), ...extra });
    const sent: Record<string, Record<string, string>[]> = {
      [usual]: [signed(usual, 1, base + 1_000), signed(usual, 2, base + 5_000)],
      // A test event during a rotation's overlap: its marker stays JSON, its body signature (the old secret's) goes to bytes.
      [marked]: [{ ...signed(marked, 1, base + 2_000, { previousSecret: `whsec_${Buffer.alloc(32, 8).toString('base64')}` }), 'x-platform-test': 'true' }],
      // An event header that is not the delivery's event type: kept.
      [otherEvent]: [{ ...signed(otherEvent, 1, base + 3_000), 'x-platform-event': 'app.refunded' }],
      // No event header at all, and a body signature in upper case: both kept as JSON, so that they read back so.
      [unusual]: [
        (({ 'x-platform-event': _dropped, ...rest }) => ({ ...rest, 'x-platform-signature': rest['x-platform-signature']!.toUpperCase().replace('SHA256=', 'sha256=') }))(
          signed(unusual, 1, base + 4_000),
        ),
      ],
      [orphan]: [signed(orphan, 1, base + 6_000)],
    };
    // Stored as the engine stored them until now: the shared part as JSON once per delivery (its first attempt's), each attempt what differs.
    for (const [deliveryId, attempts] of Object.entries(sent)) {
      await old.query('INSERT INTO webhook_request_headers (delivery_id, headers, url) VALUES ($1, $2, $3)', [
        deliveryId,
        splitHeaders(attempts[0]!, deliveryId, 1, new Date()).shared,
        hookUrl,
      ]);
      for (const [k, headers] of attempts.entries()) {
        await old.query(
          `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, url, request_headers, finished)
           SELECT $1, $2, 'SCHEDULED', $3::timestamptz, 25, 500, 'HTTP 500', NULL, ${attemptHeaders('$4::jsonb', 'x.expected')}, true
             FROM ${expectedOnce('x', '(SELECT headers FROM webhook_request_headers WHERE delivery_id = $1)', '$1::text', '$2::int', '$3::timestamptz')}`,
          [deliveryId, k + 1, new Date(Number(headers['webhook-timestamp']) * 1000), headers],
        );
      }
    }
    const before = await old.query('SELECT delivery_id, headers, url FROM webhook_request_headers ORDER BY delivery_id');
    await old.destroy();

    // Up to this one, so that undoing the last migration below undoes this one.
    const migrated = await dataSource(MIGRATIONS.slice(0, mine + 1));
    try {
      const signatureOf = (deliveryId: string) => Buffer.from(sent[deliveryId]![0]!['x-platform-signature']!.slice('sha256='.length), 'hex');
      expect(await migrated.query('SELECT delivery_id, headers, body_signature, url FROM webhook_request_headers ORDER BY delivery_id')).toEqual([
        { delivery_id: usual, headers: null, body_signature: signatureOf(usual), url: hookUrl },
        { delivery_id: marked, headers: { 'x-platform-test': 'true' }, body_signature: signatureOf(marked), url: hookUrl },
        { delivery_id: otherEvent, headers: { 'x-platform-event': 'app.refunded' }, body_signature: signatureOf(otherEvent), url: hookUrl },
        { delivery_id: unusual, headers: { 'x-platform-signature': sent[unusual]![0]!['x-platform-signature'], 'x-platform-event': null }, body_signature: null, url: hookUrl },
        { delivery_id: orphan, headers: { 'x-platform-event': 'app.purchased' }, body_signature: signatureOf(orphan), url: hookUrl },
      ]);
      // Every attempt of a delivery reads back exactly as it was sent, by today's reader, which also reads the
      // attempts in flight: their table (a later migration's, empty here) is made for the read, and removed after.
      const inFlight = new AttemptsWrittenOnce1796000036000();
      const runner = migrated.createQueryRunner();
      const inTransaction = async (step: () => Promise<void>) => {
        await runner.startTransaction();
        await step();
        await runner.commitTransaction();
      };
      await inTransaction(() => inFlight.up(runner));
      const read = await readAttempts(migrated, [usual, marked, otherEvent, unusual]);
      await inTransaction(() => inFlight.down(runner));
      await runner.release();
      expect(read.map((a) => [a.deliveryId, a.number, a.url, a.requestHeaders])).toEqual(
        [usual, marked, otherEvent, unusual].flatMap((id) => sent[id]!.map((headers, k) => [id, k + 1, hookUrl, headers])),
      );

      // Down: the JSON as it was.
      await migrated.undoLastMigration({ transaction: 'each' });
      expect(await migrated.query('SELECT delivery_id, headers, url FROM webhook_request_headers ORDER BY delivery_id')).toEqual(before);
      const columns = await migrated.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'webhook_request_headers' ORDER BY ordinal_position`);
      expect(columns.map((c: any) => c.column_name)).toEqual(['delivery_id', 'headers', 'url']);
    } finally {
      await migrated.destroy();
    }
  });
});
