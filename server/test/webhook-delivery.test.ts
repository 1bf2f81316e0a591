import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it, beforeAll } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { DELIVERY, emitEvent, isFinal, waitForDelivery, waitForEngineIdle } from './helpers/webhooks.js';
import { first } from './helpers/lists.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';

const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';

/**
 * The receiver's check, written from ../shared/spec/interface.md alone: HMAC-SHA256 keyed with the client secret
 * over the raw body bytes, `sha256=` + lowercase hex, the full header compared in constant time.
 */
function verifyPlatformSignature(rawBody: Buffer, header: string | undefined, clientSecret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(clientSecret, 'utf8')).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms', WEBHOOK_TIMEOUT: '1s', WEBHOOK_CLAIM_LEASE: '3s' });
  developer = await plaza.signIn('hooks@studio.test');
});

async function appWithReceiver(receiver: WebhookReceiver, overrides: Record<string, unknown> = {}) {
  const app = await submitApp(developer, { webhookUrl: receiver.url(), ...overrides });
  const secret = (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret.value as string;
  return { app, secret };
}

describe('webhook requests', () => {
  it('carry the stored body byte for byte, signed as interface.md and Standard Webhooks say', async () => {
    const receiver = await WebhookReceiver.start();
    const { app, secret } = await appWithReceiver(receiver);
    const delivery = await emitEvent(plaza, app.id, { userId: 'usr_42', amountVnd: 99_000, developerShareVnd: 79_200 });
    const [request] = await receiver.waitForRequests(1);

    expect(request.method).toBe('POST');
    expect(request.path).toBe('/webhooks/plaza');
    const body = JSON.parse(request.rawBody.toString('utf8'));
    expect(Object.keys(body)).toEqual(['event', 'app_id', 'user_id', 'purchase_id', 'amount_vnd', 'developer_share_vnd', 'timestamp']);
    expect(body).toMatchObject({ event: 'app.purchased', app_id: app.id, user_id: 'usr_42', purchase_id: delivery.purchaseId, amount_vnd: 99_000, developer_share_vnd: 79_200 });
    expect(body.purchase_id).toMatch(/^APP-\d{13}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);

    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-platform-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request.headers['x-platform-event']).toBe('app.purchased');
    expect(request.headers['x-platform-delivery']).toBe(delivery.id);
    expect(request.headers['x-platform-attempt']).toBe('1');
    expect(request.headers['webhook-id']).toBe(delivery.id);

    expect(verifyPlatformSignature(request.rawBody, request.headers['x-platform-signature'] as string, secret)).toBe(true);
    const standard = new Webhook(secret.slice('whsec_'.length));
    expect(standard.verify(request.rawBody.toString('utf8'), request.headers as Record<string, string>)).toEqual(body);

    // One byte changed fails both checks.
    const tampered = Buffer.from(request.rawBody);
    tampered[tampered.indexOf('9'.charCodeAt(0))] = '8'.charCodeAt(0);
    expect(verifyPlatformSignature(tampered, request.headers['x-platform-signature'] as string, secret)).toBe(false);
    expect(() => standard.verify(tampered.toString('utf8'), request.headers as Record<string, string>)).toThrow();

    // The log keeps exactly what was sent.
    const logged = await waitForDelivery(developer, delivery.id, isFinal);
    expect(logged.payload).toBe(request.rawBody.toString('utf8'));
    const sent = Object.fromEntries(logged.attempts[0].requestHeaders.map((h: any) => [h.name, h.value]));
    expect(sent['x-platform-signature']).toBe(request.headers['x-platform-signature']);
  });

  it('are signed with the new client secret as soon as it is rotated with no overlap (the worker keeps opened secrets)', async () => {
    const receiver = await WebhookReceiver.start();
    const { app, secret: before } = await appWithReceiver(receiver);
    await emitEvent(plaza, app.id);
    const [first] = await receiver.waitForRequests(1);
    expect(verifyPlatformSignature(first.rawBody, first.headers['x-platform-signature'] as string, before)).toBe(true);

    const after = (await developer.ok<{ rotateClientSecret: any }>('mutation($appId: ID!) { rotateClientSecret(appId: $appId, overlapHours: 0) { value } }', { appId: app.id }))
      .rotateClientSecret.value as string;
    await emitEvent(plaza, app.id);
    const [, second] = await receiver.waitForRequests(2);
    expect(verifyPlatformSignature(second.rawBody, second.headers['x-platform-signature'] as string, after)).toBe(true);
    expect(verifyPlatformSignature(second.rawBody, second.headers['x-platform-signature'] as string, before)).toBe(false);
    expect(new Webhook(after.slice('whsec_'.length)).verify(second.rawBody.toString('utf8'), second.headers as Record<string, string>)).toBeTruthy();
  });

  it('are not recorded or sent for an app without a webhook URL, and roll back with their transaction', async () => {
    const app = await submitApp(developer);
    const none = await plaza.services.db.transaction((manager) =>
      plaza.services.webhookEvents.recordEvent(manager, {
        type: WebhookEventType.APP_INSTALLED,
        appId: app.id,
        userId: 'u',
        purchaseId: 'APP-1-AAAAAA',
        amountVnd: 0,
        developerShareVnd: 0,
      }),
    );
    expect(none).toBeNull();

    const receiver = await WebhookReceiver.start();
    const { app: hooked } = await appWithReceiver(receiver);
    await expect(
      plaza.services.db.transaction(async (manager) => {
        await plaza.services.webhookEvents.recordEvent(manager, {
          type: WebhookEventType.APP_PURCHASED,
          appId: hooked.id,
          userId: 'u',
          purchaseId: 'APP-2-BBBBBB',
          amountVnd: 1000,
          developerShareVnd: 800,
        });
        throw new Error('the purchase failed after the event was written');
      }),
    ).rejects.toThrow('purchase failed');
    const [{ n }] = await plaza.services.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1', [hooked.id]);
    expect(n).toBe(0);
    // An event committed afterwards is delivered: the engine has claimed past the rolled-back one, which
    // would have been due first; that one request is all the receiver got.
    const later = await emitEvent(plaza, hooked.id);
    await waitForDelivery(developer, later.id, isFinal);
    await waitForEngineIdle(plaza);
    expect(receiver.requests.map((r) => r.headers['x-platform-delivery'])).toEqual([later.id]);
  });
});

describe('the first attempt', () => {
  it('starts right after the commit, woken by it rather than by the once-a-second check', async () => {
    const receiver = await WebhookReceiver.start();
    const { app } = await appWithReceiver(receiver);
    let last = await emitEvent(plaza, app.id); // the run is now awake and idling
    await receiver.waitForRequests(1);
    const lags: number[] = [];
    for (let i = 0; i < 5; i++) {
      // The previous delivery is written and the run has since asked the queue and found nothing: it now
      // waits up to a second (the fallback check), so only the commit's wake-up can deliver within 300 ms.
      await waitForDelivery(developer, last.id, isFinal);
      const claims = await plaza.services.metrics.claimCount();
      await expect.poll(() => plaza.services.metrics.claimCount(), { timeout: 5000, interval: 10 }).toBeGreaterThan(claims);
      const committed = Date.now();
      last = await emitEvent(plaza, app.id);
      const request = first((await receiver.waitForRequests(i + 2)).slice(-1), 'the newest request');
      lags.push(request.receivedAt - committed);
    }
    expect(Math.max(...lags), `commit-to-receipt lags ${lags.join(', ')} ms`).toBeLessThan(300);
  });
});

/**
 * Retries must never be early, never lost and never doubled; those hold on any machine. How punctual
 * they are is a speed, measured by `pnpm bench` (3, retry fidelity), not asserted here. What a test can
 * pin whatever the load is that a retry was started by its own schedule, not rescued later: a retry
 * whose claim was lost would only be taken over when the lease ran out, and LATE_BOUND_MS is far below it.
 */
const RETRY_TEST_LEASE = '30s';
const LATE_BOUND_MS = 10_000;

describe('retries', () => {
  it('answer 500 then 200: exactly two attempts with the same delivery id, then SUCCEEDED', async () => {
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 500, body: 'database down' } : { status: 200, body: 'thanks' }));
    const { app } = await appWithReceiver(receiver);
    const delivery = await emitEvent(plaza, app.id);
    const done = await waitForDelivery(developer, delivery.id, isFinal);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.nextAttemptAt).toBeNull();
    expect(done.attempts.map((a: any) => [a.number, a.trigger, a.statusCode, a.error, a.responseBodyExcerpt])).toEqual([
      [1, 'SCHEDULED', 500, 'HTTP 500', 'database down'],
      [2, 'SCHEDULED', 200, null, 'thanks'],
    ]);
    await waitForEngineIdle(plaza);
    expect(receiver.requests.map((r) => [r.headers['x-platform-delivery'], r.headers['x-platform-attempt']])).toEqual([
      [delivery.id, '1'],
      [delivery.id, '2'],
    ]);
  });

  it('always failing: six attempts at the configured offsets, then FAILED and visible in the log', async () => {
    const schedule = [200, 400, 600, 800, 1000];
    const failing = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: schedule.map((ms) => `${ms}ms`).join(','), WEBHOOK_TIMEOUT: '1s', WEBHOOK_CLAIM_LEASE: RETRY_TEST_LEASE });
    const owner = await failing.signIn('failing@studio.test');
    const receiver = await WebhookReceiver.start(() => ({ status: 503, body: 'x'.repeat(5000) }));
    const app = await submitApp(owner, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(failing, app.id);
    const done = await waitForDelivery(owner, delivery.id, isFinal, 60_000);
    expect(done.status).toBe('FAILED');
    expect(done.attemptCount).toBe(6);
    expect(done.attempts).toHaveLength(6);
    // Only the first 1 KiB of a response is kept.
    expect(done.attempts[0].responseBodyExcerpt).toHaveLength(1024);

    // Each retry is due `delay` after the previous attempt ended: never before it, and never as late as a
    // lost claim's lease (see RETRY_TEST_LEASE).
    for (let i = 1; i < 6; i++) {
      const previous = done.attempts[i - 1];
      const previousEnd = Date.parse(previous.startedAt) + previous.durationMs;
      const lateness = Date.parse(done.attempts[i].startedAt) - previousEnd - (schedule[i - 1] ?? Number.NaN);
      expect(lateness, `attempt ${i + 1}`).toBeGreaterThanOrEqual(-5);
      expect(lateness, `attempt ${i + 1}`).toBeLessThan(LATE_BOUND_MS);
    }
    await waitForEngineIdle(failing);
    expect(receiver.requests).toHaveLength(6);

    const { webhookDeliveries } = await owner.ok<{ webhookDeliveries: any }>(
      'query($appId: ID!) { webhookDeliveries(filter: { appId: $appId, status: FAILED }) { edges { node { id status attemptCount } } } }',
      { appId: app.id },
    );
    expect(webhookDeliveries.edges.map((e: any) => e.node)).toEqual([{ id: delivery.id, status: 'FAILED', attemptCount: 6 }]);
  }, 120_000);

  it('due within milliseconds (kept by the worker that saw the failure) or claimed ahead: never early, every attempt recorded once', async () => {
    // 20 and 30 ms fall within the claim-ahead window (the worker keeps the delivery); 250 ms is claimed ahead.
    const schedule = [20, 30, 250];
    const quick = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: schedule.map((ms) => `${ms}ms`).join(','), WEBHOOK_TIMEOUT: '1s', WEBHOOK_CLAIM_LEASE: RETRY_TEST_LEASE });
    const owner = await quick.signIn('quick-retries@studio.test');
    const receiver = await WebhookReceiver.start(() => ({ status: 500, body: 'not yet' }));
    const app = await submitApp(owner, { webhookUrl: receiver.url() });
    const deliveries = [];
    for (let i = 0; i < 20; i++) deliveries.push(await emitEvent(quick, app.id));
    for (const { id } of deliveries) {
      const done = await waitForDelivery(owner, id, isFinal, 60_000);
      expect(done.status).toBe('FAILED');
      expect(done.attempts.map((a: any) => [a.number, a.statusCode])).toEqual([
        [1, 500],
        [2, 500],
        [3, 500],
        [4, 500],
      ]);
      for (let i = 1; i < done.attempts.length; i++) {
        const previous = done.attempts[i - 1];
        const due = Date.parse(previous.startedAt) + previous.durationMs + schedule[i - 1];
        const lateness = Date.parse(done.attempts[i].startedAt) - due;
        expect(lateness, `attempt ${i + 1} of ${id}`).toBeGreaterThanOrEqual(-2); // durations are stored in whole ms
        expect(lateness, `attempt ${i + 1} of ${id}`).toBeLessThan(LATE_BOUND_MS);
      }
    }
    await waitForEngineIdle(quick);
    expect(receiver.requests).toHaveLength(20 * 4);
  }, 120_000);
});

describe('what counts as failure', () => {
  it('cuts a receiver that hangs at WEBHOOK_TIMEOUT', async () => {
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? 'hang' : { status: 200 }));
    const { app } = await appWithReceiver(receiver);
    const delivery = await emitEvent(plaza, app.id);
    const done = await waitForDelivery(developer, delivery.id, isFinal);
    expect(done.status).toBe('SUCCEEDED');
    const [first] = done.attempts;
    expect(first.statusCode).toBeNull();
    expect(first.error).toMatch(/^timeout/);
    expect(first.durationMs).toBeGreaterThanOrEqual(950);
    expect(first.durationMs).toBeLessThan(2500);
  });

  it('counts a 302 as a failure and does not follow it', async () => {
    const elsewhere = await WebhookReceiver.start();
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 302, headers: { location: elsewhere.url('/stolen') } } : { status: 204 }));
    const { app } = await appWithReceiver(receiver);
    const delivery = await emitEvent(plaza, app.id);
    const done = await waitForDelivery(developer, delivery.id, isFinal);
    expect(done.attempts[0]).toMatchObject({ statusCode: 302, error: 'HTTP 302: redirects are not followed' });
    expect(done.attempts[1]).toMatchObject({ statusCode: 204, error: null });
    expect(elsewhere.requests).toHaveLength(0);
  });
});

describe('live updates', () => {
  it('push every status change and attempt to a graphql-ws subscriber of the app', async () => {
    const { subscribe } = await import('./helpers/graphql-client.js');
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const { app } = await appWithReceiver(receiver);
    const socket = developer.websocket();
    const live = subscribe<{ webhookDeliveryUpdated: any }>(
      socket,
      'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status attemptCount eventName payload attempts { number statusCode } } }',
      { appId: app.id },
    );
    await plaza.waitForSubscriptions(1);
    const delivery = await emitEvent(plaza, app.id);
    const updates = await live.waitFor(2);
    // The update travels without the body; it is read for the subscriber, byte for byte what was signed and sent.
    for (const update of updates) expect(update.webhookDeliveryUpdated.payload).toBe(receiver.requests[0]?.rawBody.toString('utf8'));
    expect(updates.map((u) => [u.webhookDeliveryUpdated.id, u.webhookDeliveryUpdated.status, u.webhookDeliveryUpdated.attemptCount])).toEqual([
      [delivery.id, 'RETRYING', 1],
      [delivery.id, 'SUCCEEDED', 2],
    ]);
    expect(updates[1].webhookDeliveryUpdated.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
    live.stop();
    await socket.dispose();
  });

  it('refuse a subscription to another developer’s app', async () => {
    const { subscribe } = await import('./helpers/graphql-client.js');
    const receiver = await WebhookReceiver.start();
    const { app } = await appWithReceiver(receiver);
    const rival = await plaza.signIn('rival@hooks.test');
    const socket = rival.websocket();
    const live = subscribe(socket, 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id } }', { appId: app.id });
    await expect(live.waitFor(1, 3000)).rejects.toThrow(/NOT_FOUND|not found/i);
    await socket.dispose();
  });
});

describe('manual redelivery and test events', () => {
  it('makes one immediate MANUAL attempt that does not start a new schedule', async () => {
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 200, body: 'first' } : { status: 500, body: 'now broken' }));
    const { app } = await appWithReceiver(receiver);
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    const { redeliverWebhook } = await developer.ok<{ redeliverWebhook: any }>(
      `mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id status attemptCount nextAttemptAt attempts { number trigger statusCode } } }`,
      { id: delivery.id },
    );
    expect(redeliverWebhook).toMatchObject({ id: delivery.id, status: 'SUCCEEDED', attemptCount: 2, nextAttemptAt: null });
    expect(redeliverWebhook.attempts.map((a: any) => [a.number, a.trigger, a.statusCode])).toEqual([
      [1, 'SCHEDULED', 200],
      [2, 'MANUAL', 500],
    ]);
    // Read again after the redelivery committed: still nothing due, so nothing is left to claim.
    expect((await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id: delivery.id })).webhookDelivery).toMatchObject({ status: 'SUCCEEDED', nextAttemptAt: null });
    await waitForEngineIdle(plaza);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.headers['x-platform-attempt']).toBe('2');
  });

  it('sends a signed app.test event on request, and refuses an app without a webhook URL', async () => {
    const receiver = await WebhookReceiver.start();
    const { app, secret } = await appWithReceiver(receiver);
    const { sendTestWebhook } = await developer.ok<{ sendTestWebhook: any }>('mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id event eventName status } }', {
      appId: app.id,
    });
    expect(sendTestWebhook).toMatchObject({ event: 'APP_TEST', eventName: 'app.test', status: 'PENDING' });
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request.rawBody.toString()).event).toBe('app.test');
    expect(verifyPlatformSignature(request.rawBody, request.headers['x-platform-signature'] as string, secret)).toBe(true);

    const bare = await submitApp(developer);
    expect((await developer.error('mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }', { appId: bare.id })).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'webhookUrl',
      reason: 'NO_WEBHOOK_URL',
    });
    const rival = await plaza.signIn('rival2@hooks.test');
    expect((await rival.error('mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }', { appId: app.id })).extensions?.code).toBe('NOT_FOUND');
    expect((await rival.ok<{ webhookDelivery: any }>(DELIVERY, { id: sendTestWebhook.id })).webhookDelivery).toBeNull();
  });
});
