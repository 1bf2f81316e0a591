import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { subscribe } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { startSmtpInbox, type ReceivedMail } from './helpers/smtp-inbox.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery, waitForEngineIdle } from './helpers/webhooks.js';

// Issue 18 parts 2-4: failure alerts, the automatic disable, bulk recovery; on real Plazas and real
// receivers, with the retry schedule shortened to one quick retry (a delivery gives up in well under a second).
const SCHEDULE = { WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '2s', WEBHOOK_CLAIM_LEASE: '4s' };

const NOTIFICATIONS = '{ notifications(first: 100) { edges { node { kind message appId appName since lastError failedDeliveries } } } }';
const RECOVER = 'mutation($appId: ID!, $since: DateTime!) { recoverWebhookDeliveries(appId: $appId, since: $since) { appId since deliveriesQueued } }';
const ENABLE = 'mutation($appId: ID!) { enableWebhook(appId: $appId) { id webhookState } }';
const APP_STATE = 'query($id: ID!) { app(id: $id) { id webhookState } }';
const DELIVERY = 'query($id: ID!) { webhookDelivery(id: $id) { id status heldReason attemptCount attempts { number trigger startedAt statusCode error } } }';

const failing = () => ({ status: 500, body: 'database is down' });
const ok = () => ({ status: 200, body: 'ok' });

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (!value) throw new Error(`${what}: not within ${timeoutMs} ms`);
      return value;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

async function notificationsOf(client: GraphQLTestClient, appId: string, kind: string): Promise<{ kind: string; message: string; appId: string; [fact: string]: any }[]> {
  const { notifications } = await client.ok<{ notifications: { edges: { node: any }[] } }>(NOTIFICATIONS);
  return notifications.edges.map((e) => e.node).filter((n) => n.appId === appId && n.kind === kind);
}

const deliveryOf = async (client: GraphQLTestClient, id: string) => (await client.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery;

/**
 * Resolves once the engine has run two claims since it was called, each woken at once: the second began
 * after this call, so whatever was claimable now has been claimed (the point past which a request that
 * should not be sent would already be on its way). The delivery run must be active (attempts in flight).
 */
async function engineLookedAgain(plaza: TestPlaza): Promise<void> {
  const from = await plaza.services.metrics.claimCount();
  await expect
    .poll(
      async () => {
        plaza.services.webhookEngine.wake();
        return plaza.services.metrics.claimCount();
      },
      { timeout: 10_000, interval: 20 },
    )
    .toBeGreaterThanOrEqual(from + 2);
}

describe('failure alerts and bulk recovery', () => {
  let plaza: TestPlaza;
  let developer: GraphQLTestClient;
  let admin: GraphQLTestClient;

  beforeAll(async () => {
    plaza = await startTestPlaza(SCHEDULE);
    developer = await plaza.signIn('alerts@studio.test');
    admin = await plaza.signIn('admin@plaza.test');
  });

  it('tells the developer once a day that deliveries fail (live, with since when, the last error and a link), and once that they succeed again', async () => {
    const receiver = await WebhookReceiver.start(failing);
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const socket = developer.websocket();
    const live = subscribe<{ notificationAdded: any }>(socket, 'subscription { notificationAdded { kind message appId appName since lastError failedDeliveries } }');
    await plaza.waitForSubscriptions(1);
    try {
      const started = Date.now();
      const [first, second] = await Promise.all([emitEvent(plaza, app.id), emitEvent(plaza, app.id)]);
      await Promise.all([first, second].map((d) => waitForDelivery(developer, d.id, (x) => x.status === 'FAILED')));

      const alert = await until('a WEBHOOK_FAILING notification', async () => (await notificationsOf(developer, app.id, 'WEBHOOK_FAILING'))[0]);
      const [pushed] = await live.waitFor(1);
      expect(pushed.notificationAdded).toMatchObject({ kind: 'WEBHOOK_FAILING', appId: app.id, message: alert.message });
      expect(alert.message).toContain(app.name);
      // The sweep may run between the two failures on a busy machine: the alert counts what had given up by then.
      expect(alert.message).toMatch(/\b[12] deliver(?:y|ies) gave up/);
      expect(alert.message).toContain('last error: HTTP 500');
      const since = new Date(/Failing since (\S+);/.exec(alert.message)?.[1] ?? 'not in the message').getTime();
      expect(since).toBeGreaterThanOrEqual(started - 1000);
      expect(since).toBeLessThanOrEqual(Date.now());
      expect(alert.message).toContain(`/developer/webhooks?appId=${app.id}&status=FAILED`);
      // The facts of the message, for the portal to say it in its reader's language (issue 17).
      const facts = { appName: app.name, lastError: 'HTTP 500', since: new Date(since).toISOString(), failedDeliveries: expect.any(Number) };
      expect(alert).toMatchObject(facts);
      expect(pushed.notificationAdded).toMatchObject(facts);
      expect(alert.message).toContain(`${alert.failedDeliveries} deliver`);

      // Deliveries succeed again: one notice, however many succeed.
      receiver.responder = ok;
      for (const _ of [1, 2]) await waitForDelivery(developer, (await emitEvent(plaza, app.id)).id, (x) => x.status === 'SUCCEEDED');
      const recovered = await until('a WEBHOOK_RECOVERED notification', async () => (await notificationsOf(developer, app.id, 'WEBHOOK_RECOVERED'))[0]);
      expect(recovered.message).toContain('succeed again');
      expect(recovered).toMatchObject({ appName: app.name, lastError: null, failedDeliveries: null });
      expect(Date.parse(recovered.since)).toBeGreaterThan(since);

      // Failing again the same day: no second alert.
      receiver.responder = failing;
      await waitForDelivery(developer, (await emitEvent(plaza, app.id)).id, (x) => x.status === 'FAILED');
      // A sweep that starts after the failure was written: a wrong second alert would be made by it (or,
      // claiming the same row, by the one the write asked for, which it then waits for).
      await plaza.services.webhookHealth.sweep();
      expect(await notificationsOf(developer, app.id, 'WEBHOOK_FAILING')).toHaveLength(1);
      expect(await notificationsOf(developer, app.id, 'WEBHOOK_RECOVERED')).toHaveLength(1);
    } finally {
      live.stop();
      await socket.dispose();
    }
  });

  it('sends every FAILED delivery since the given time again, oldest first, once each as a MANUAL attempt; asking twice sends nothing twice', async () => {
    const receiver = await WebhookReceiver.start(failing);
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const before = new Date(Date.now() - 1000).toISOString();
    const deliveries: Awaited<ReturnType<typeof emitEvent>>[] = [];
    for (const _ of [1, 2, 3]) deliveries.push(await emitEvent(plaza, app.id));
    await Promise.all(deliveries.map((d) => waitForDelivery(developer, d.id, (x) => x.status === 'FAILED')));
    const failedRequests = receiver.requests.length;
    expect(failedRequests).toBe(6); // two scheduled attempts each

    // Slow answers, so the second call comes while the first one's deliveries are still queued or in flight.
    receiver.responder = () => ({ status: 200, body: 'ok', delayMs: 300 });
    const { recoverWebhookDeliveries: firstCall } = await developer.ok<{ recoverWebhookDeliveries: any }>(RECOVER, { appId: app.id, since: before });
    expect(firstCall).toEqual({ appId: app.id, since: before, deliveriesQueued: 3 });
    const { recoverWebhookDeliveries: secondCall } = await admin.ok<{ recoverWebhookDeliveries: any }>(RECOVER, { appId: app.id, since: before });
    expect(secondCall.deliveriesQueued).toBe(0);

    const settled = await Promise.all(deliveries.map((d) => waitForDelivery(developer, d.id, (x) => x.status === 'SUCCEEDED')));
    // Final, nothing due, nothing in flight: no further request of theirs can come.
    await waitForEngineIdle(plaza);
    const recoveryRequests = receiver.requests.slice(failedRequests);
    expect(recoveryRequests.map((r) => r.headers['x-platform-delivery']).sort()).toEqual(deliveries.map((d) => d.id).sort());
    for (const [i, delivery] of settled.entries()) {
      expect(delivery.attempts.map((a: any) => a.trigger)).toEqual(['SCHEDULED', 'SCHEDULED', 'MANUAL']);
      // Same delivery, same bytes.
      const request = recoveryRequests.find((r) => r.headers['x-platform-delivery'] === deliveries[i]?.id)!;
      expect(request.rawBody.toString('utf8')).toBe(delivery.payload);
      expect(request.headers['x-platform-attempt']).toBe('3');
    }
    // Oldest first: the recovery attempts started in the order the deliveries were created.
    const startedAt = settled.map((d) => new Date(d.attempts[2].startedAt).getTime());
    expect([...startedAt].sort((a, b) => a - b)).toEqual(startedAt);
  });

  it('keeps the per-app cap while recovering: a hanging receiver never holds more than 32 requests, and each failed delivery gets one attempt', async () => {
    const receiver = await WebhookReceiver.start(failing);
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const before = new Date(Date.now() - 1000).toISOString();
    const deliveries = await Promise.all(Array.from({ length: 40 }, () => emitEvent(plaza, app.id)));
    await Promise.all(deliveries.map((d) => waitForDelivery(developer, d.id, (x) => x.status === 'FAILED', 30_000)));
    const failedRequests = receiver.requests.length;

    receiver.responder = () => 'hang';
    const { recoverWebhookDeliveries } = await developer.ok<{ recoverWebhookDeliveries: any }>(RECOVER, { appId: app.id, since: before });
    expect(recoverWebhookDeliveries.deliveriesQueued).toBe(40);
    await receiver.waitForRequests(failedRequests + 32, 15_000);
    // The engine has looked at the queue again with these 32 hanging: a 33rd it would send is sent by now.
    await engineLookedAgain(plaza);
    // Held at once, not counted in all: on a busy machine the first hanging attempts may already have
    // timed out (2 s) and freed their slots by now, so more than 32 may have arrived in all.
    expect(receiver.hangingNow).toBeLessThanOrEqual(32);
    expect(receiver.mostHangingAtOnce).toBeLessThanOrEqual(32);
    // The hanging attempts time out (2 s) and free their slots for the other 8; none is tried twice.
    await receiver.waitForRequests(failedRequests + 40, 20_000);
    const final = await Promise.all(deliveries.map((d) => waitForDelivery(developer, d.id, (x) => isFinal(x) && x.attempts.every((a: any) => a.finished), 20_000)));
    expect(receiver.mostHangingAtOnce).toBeLessThanOrEqual(32);
    expect(final.map((d) => d.status)).toEqual(deliveries.map(() => 'FAILED'));
    for (const d of final) expect(d.attempts.map((a: any) => a.trigger)).toEqual(['SCHEDULED', 'SCHEDULED', 'MANUAL']);
    await waitForEngineIdle(plaza);
    expect(receiver.requests.length - failedRequests).toBe(40);
  });

  it('refuses a recovery that starts in the future, naming the field, and changes nothing', async () => {
    const receiver = await WebhookReceiver.start(failing);
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, (x) => x.status === 'FAILED');
    const result = await developer.request(RECOVER, { appId: app.id, since: new Date(Date.now() + 3_600_000).toISOString() });
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'since' });
    expect((await deliveryOf(developer, delivery.id)).status).toBe('FAILED');
  });
});

describe('automatic disable', () => {
  let plaza: TestPlaza;
  let developer: GraphQLTestClient;

  beforeAll(async () => {
    plaza = await startTestPlaza({ ...SCHEDULE, WEBHOOK_DISABLE_AFTER: '2s' });
    developer = await plaza.signIn('disabled@studio.test');
  });

  it('disables a webhook that keeps failing, records its events without sending them, and after Enable sends them once each through recovery', async () => {
    const receiver = await WebhookReceiver.start(failing);
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const before = new Date(Date.now() - 1000).toISOString();
    expect((await developer.ok<{ app: any }>(APP_STATE, { id: app.id })).app.webhookState).toBe('ENABLED');

    const first = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, first.id, (x) => x.status === 'FAILED');
    // Still failing once the run is older than WEBHOOK_DISABLE_AFTER by the clock the rule reads (PostgreSQL's):
    // the run started with the first failed attempt.
    const runStarted = (await deliveryOf(developer, first.id)).attempts[0].startedAt;
    await expect
      .poll(async () => (await plaza.services.db.query(`SELECT clock_timestamp() - $1::timestamptz > interval '2 seconds' AS old`, [runStarted]))[0].old, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(true);
    const second = await emitEvent(plaza, app.id);
    await until('the webhook disabled', async () => (await developer.ok<{ app: any }>(APP_STATE, { id: app.id })).app.webhookState === 'DISABLED');
    const notice = await until('a WEBHOOK_DISABLED notification', async () => (await notificationsOf(developer, app.id, 'WEBHOOK_DISABLED'))[0]);
    expect(notice.message).toContain('Last error: HTTP 500');
    expect(notice).toMatchObject({ appName: app.name, lastError: 'HTTP 500', failedDeliveries: null });
    expect(notice.message).toContain(`failed since ${notice.since} with no success`);
    expect(notice.message).toContain(`/developer/webhooks?appId=${app.id}&status=FAILED`);
    await waitForDelivery(developer, second.id, (x) => x.status === 'FAILED' && x.attempts.every((a: any) => a.finished));

    // While disabled: recorded, held, never attempted.
    const requestsWhenDisabled = receiver.requests.length;
    const held = [await emitEvent(plaza, app.id), await emitEvent(plaza, app.id)] as const;
    // A later event of another app is delivered: the engine has claimed past the held ones, which were due first.
    const witness = await WebhookReceiver.start(ok);
    const other = await submitApp(developer, { webhookUrl: witness.url() });
    await waitForDelivery(developer, (await emitEvent(plaza, other.id)).id, (x) => x.status === 'SUCCEEDED');
    await waitForEngineIdle(plaza);
    for (const { id } of held) {
      const delivery = await deliveryOf(developer, id);
      expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 0, attempts: [] });
      expect(delivery.heldReason).toMatch(/disabled/);
    }
    expect(receiver.requests.length).toBe(requestsWhenDisabled);
    const refused = await developer.request(RECOVER, { appId: app.id, since: before });
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    // Fixed and enabled: new events go out again; the held and failed ones wait for recovery.
    receiver.responder = ok;
    expect((await developer.ok<{ enableWebhook: any }>(ENABLE, { appId: app.id })).enableWebhook).toEqual({ id: app.id, webhookState: 'ENABLED' });
    const fresh = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, fresh.id, (x) => x.status === 'SUCCEEDED');
    expect((await deliveryOf(developer, held[0].id)).attemptCount).toBe(0);

    const { recoverWebhookDeliveries } = await developer.ok<{ recoverWebhookDeliveries: any }>(RECOVER, { appId: app.id, since: before });
    expect(recoverWebhookDeliveries.deliveriesQueued).toBe(4);
    const recovered = [first, second, ...held];
    const done = await Promise.all(recovered.map((d) => waitForDelivery(developer, d.id, (x) => x.status === 'SUCCEEDED')));
    await waitForEngineIdle(plaza);
    const sentAfterEnable = receiver.requests.slice(requestsWhenDisabled).map((r) => r.headers['x-platform-delivery']);
    for (const { id } of recovered) expect(sentAfterEnable.filter((sent) => sent === id)).toHaveLength(1);
    for (const delivery of done) {
      expect(delivery.attempts.at(-1).trigger).toBe('MANUAL');
      expect((await deliveryOf(developer, delivery.id)).heldReason).toBeNull();
    }
    // The held ones: exactly one attempt, the recovery's.
    for (const { id } of held) expect((await deliveryOf(developer, id)).attempts.map((a: any) => a.trigger)).toEqual(['MANUAL']);
  });
});

describe('failure alerts by e-mail', () => {
  let inbox: ReceivedMail[] = [];
  let smtpUrl: string;

  beforeAll(async () => {
    const smtp = await startSmtpInbox();
    inbox = smtp.mail;
    smtpUrl = smtp.url;
  });

  it('e-mails the developer the same alert when SMTP is configured', async () => {
    const plaza = await startTestPlaza({ ...SCHEDULE, SMTP_URL: smtpUrl });
    const developer = await plaza.signIn('mailed@studio.test');
    const receiver = await WebhookReceiver.start(failing);
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    await waitForDelivery(developer, (await emitEvent(plaza, app.id)).id, (x) => x.status === 'FAILED');
    const mail = await until('the alert e-mail', async () => inbox.find((m) => m.raw.includes(`Webhook failing: ${app.name}`)));
    expect(mail.to).toEqual(['mailed@studio.test']);
    // The body may be quoted-printable: undo its soft line breaks and its '=' escape.
    const body = mail.raw.replace(/=\r?\n/g, '').replaceAll('=3D', '=');
    expect(body).toContain(`/developer/webhooks?appId=${app.id}&status=FAILED`);
    expect(body).toContain('last error: HTTP 500');
  });
});
