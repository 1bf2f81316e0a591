import { createHmac } from 'node:crypto';
import { Webhook } from 'svix';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { WebhookReceiver, type ReceivedRequest } from './helpers/webhook-receiver.js';
import { isFinal, waitForDelivery } from './helpers/webhooks.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';

// Issue 18 part 6: an app chooses which events it is sent; the webhook URL and events change without
// review; sendTestWebhook sends a sample of any event, marked as a test, and buys nothing.

const POINT_VALUE_VND = 1000;
const PRICE = 4;
const AMOUNT = PRICE * POINT_VALUE_VND;
const SHARE = Math.floor((AMOUNT * 80) / 100);
const ALL_FOUR = ['APP_PURCHASED', 'APP_INSTALLED', 'APP_UNINSTALLED', 'APP_REFUNDED'];

const APP = 'query($id: ID!) { app(id: $id) { id status revision name webhookUrl webhookEvents } }';
const UPDATE = 'mutation($id: ID!, $input: UpdateAppInput!) { updateApp(id: $id, input: $input) { id status revision name webhookUrl webhookEvents } }';
const DELIVERIES = 'query($appId: ID!) { webhookDeliveries(filter: { appId: $appId }, first: 50) { edges { node { id eventName purchaseId status } } } }';
const SEND_TEST = 'mutation($appId: ID!, $event: WebhookEventType) { sendTestWebhook(appId: $appId, event: $event) { id event eventName purchaseId payload } }';
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza({ POINT_VALUE_VND: String(POINT_VALUE_VND), WEBHOOK_RETRY_SCHEDULE: '200ms' });
  [developer, reviewer, admin] = await Promise.all([plaza.signIn('filters-dev@studio.test'), plaza.signIn(REVIEWER_EMAIL), plaza.signIn(ADMIN_EMAIL)]);
});

async function approvedApp(overrides: Record<string, unknown>): Promise<string> {
  const { id } = await submitApp(developer, overrides);
  await reviewer.ok(DECIDE, { input: { appId: id, outcome: 'APPROVED' } });
  return id;
}

const eventsOf = (requests: ReceivedRequest[]) => requests.map((r) => JSON.parse(r.rawBody.toString('utf8')).event);

describe('event filters', () => {
  it('an app is sent all four events unless it chooses; the choice is kept in one order without repeats', async () => {
    const { id } = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/plaza' });
    expect((await developer.ok<{ app: { webhookEvents: string[] } }>(APP, { id })).app.webhookEvents).toEqual(ALL_FOUR);
    const chosen = await submitApp(developer, { webhookEvents: ['APP_REFUNDED', 'APP_PURCHASED', 'APP_REFUNDED'] });
    expect((await developer.ok<{ app: { webhookEvents: string[] } }>(APP, { id: chosen.id })).app.webhookEvents).toEqual(['APP_PURCHASED', 'APP_REFUNDED']);
  });

  it('events the app does not subscribe to are neither sent nor recorded as deliveries', async () => {
    const receiver = await WebhookReceiver.start();
    const appId = await approvedApp({ pricing: 'PAID', pricePoints: PRICE, webhookUrl: receiver.url('/filtered'), webhookEvents: ['APP_PURCHASED', 'APP_REFUNDED'] });
    const buyer = await plaza.signIn('filters-buyer@plaza.test');
    await admin.ok('mutation($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "filters test") { points } }', { userId: buyer.userId });

    const { purchaseApp } = await buyer.ok<{ purchaseApp: { purchaseId: string } }>('mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }', { appId });
    await buyer.ok('mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }', { appId });
    await buyer.ok('mutation($appId: ID!) { installApp(appId: $appId) { id } }', { appId });
    await admin.ok('mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId, reason: "filters test") { status } }', { purchaseId: purchaseApp.purchaseId });

    const received = await receiver.waitForRequests(2);
    const { webhookDeliveries } = await developer.ok<{ webhookDeliveries: { edges: { node: { id: string; eventName: string; purchaseId: string } }[] } }>(DELIVERIES, { appId });
    const recorded = webhookDeliveries.edges.map((e) => e.node);
    expect(recorded.map((d) => d.eventName).sort()).toEqual(['app.purchased', 'app.refunded']);
    await Promise.all(recorded.map((d) => waitForDelivery(developer, d.id, isFinal)));
    // Settled: nothing else came, and a real event carries no test mark.
    expect(eventsOf(receiver.requests).sort()).toEqual(['app.purchased', 'app.refunded']);
    expect(received.every((r) => r.headers['x-platform-test'] === undefined)).toBe(true);
  });

  it('the webhook URL and events change at once on an approved app; a listing field still goes to review', async () => {
    const receiver = await WebhookReceiver.start();
    const appId = await approvedApp({ webhookUrl: receiver.url('/before') });

    const { updateApp: webhookOnly } = await developer.ok<{ updateApp: any }>(UPDATE, {
      id: appId,
      input: { webhookUrl: receiver.url('/after'), webhookEvents: ['APP_UNINSTALLED'] },
    });
    expect(webhookOnly).toMatchObject({ status: 'APPROVED', revision: 2, webhookUrl: receiver.url('/after'), webhookEvents: ['APP_UNINSTALLED'] });

    // The new filter is in force at once: an install is not sent, the uninstall is.
    const user = await plaza.signIn('filters-user@plaza.test');
    await user.ok('mutation($appId: ID!) { installApp(appId: $appId) { id } }', { appId });
    await user.ok('mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }', { appId });
    const [request] = await receiver.waitForRequests(1);
    expect(request.path).toBe('/after');
    expect(JSON.parse(request.rawBody.toString('utf8')).event).toBe('app.uninstalled');
    const { webhookDeliveries } = await developer.ok<{ webhookDeliveries: { edges: { node: { eventName: string } }[] } }>(DELIVERIES, { appId });
    expect(webhookDeliveries.edges.map((e) => e.node.eventName)).toEqual(['app.uninstalled']);

    const { updateApp: listing } = await developer.ok<{ updateApp: any }>(UPDATE, { id: appId, input: { name: 'Renamed Quiz', webhookEvents: ALL_FOUR } });
    expect(listing).toMatchObject({ status: 'PENDING_REVIEW', name: 'Renamed Quiz', webhookEvents: ALL_FOUR });
  });

  it('an empty list or APP_TEST is refused, naming webhookEvents, and changes nothing', async () => {
    const appId = await approvedApp({ webhookUrl: 'https://hooks.example.com/plaza', webhookEvents: ['APP_PURCHASED'] });
    const before = (await developer.ok<{ app: unknown }>(APP, { id: appId })).app;
    for (const webhookEvents of [[], ['APP_TEST'], ['APP_PURCHASED', 'APP_TEST']]) {
      const error = await developer.error(UPDATE, { id: appId, input: { webhookEvents } });
      expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'webhookEvents' });
      expect(error.message).toMatch(/webhookEvents/);
    }
    const submitted = await developer.error('mutation($input: SubmitAppInput!) { submitApp(input: $input) { id } }', {
      input: {
        name: 'No Events',
        shortDescription: 'Nothing at all',
        iconUrl: 'https://apps.example.com/i.png',
        appUrl: 'https://apps.example.com/',
        category: 'games',
        pricing: 'FREE',
        webhookEvents: [],
      },
    });
    expect(submitted.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'webhookEvents' });
    expect((await developer.ok<{ app: unknown }>(APP, { id: appId })).app).toEqual(before);
  });
});

describe('sendTestWebhook with an event', () => {
  it('sends a signed sample of that event, marked as a test, whatever the filter, and buys nothing', async () => {
    const receiver = await WebhookReceiver.start();
    const appId = await approvedApp({ pricing: 'PAID', pricePoints: PRICE, webhookUrl: receiver.url('/test'), webhookEvents: ['APP_REFUNDED'] });
    const secret = (await developer.ok<{ revealClientSecret: { value: string } }>(REVEAL, { appId })).revealClientSecret.value;

    const { sendTestWebhook: purchase } = await developer.ok<{ sendTestWebhook: any }>(SEND_TEST, { appId, event: 'APP_PURCHASED' });
    const { sendTestWebhook: plain } = await developer.ok<{ sendTestWebhook: any }>(SEND_TEST, { appId });
    expect(purchase).toMatchObject({ event: 'APP_PURCHASED', eventName: 'app.purchased' });
    expect(plain).toMatchObject({ event: 'APP_TEST', eventName: 'app.test' });

    const requests = await receiver.waitForRequests(2);
    const byEvent = Object.fromEntries(requests.map((r) => [JSON.parse(r.rawBody.toString('utf8')).event, r]));
    const sample = byEvent['app.purchased'];
    const body = JSON.parse(sample.rawBody.toString('utf8'));
    // Exactly the seven fields, shaped as a real purchase, with a recognisable test purchase_id.
    expect(Object.keys(body)).toEqual(['event', 'app_id', 'user_id', 'purchase_id', 'amount_vnd', 'developer_share_vnd', 'timestamp']);
    expect(body).toMatchObject({
      event: 'app.purchased',
      app_id: appId,
      user_id: developer.userId,
      amount_vnd: AMOUNT,
      developer_share_vnd: SHARE,
      purchase_id: purchase.purchaseId,
    });
    expect(body.purchase_id).toMatch(/^APP-[0-9]{13,}-TEST[0-9A-HJKMNP-TV-Z]{2}$/);
    expect(JSON.parse(byEvent['app.test'].rawBody.toString('utf8'))).toMatchObject({ amount_vnd: 0, developer_share_vnd: 0 });
    for (const request of requests) {
      expect(request.headers['x-platform-test']).toBe('true');
      // Signed like a real event: both signatures verify (webhook-signature with Svix's own library).
      expect(request.headers['x-platform-signature']).toBe(`sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`);
      const headers = {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      };
      expect(() => new Webhook(secret).verify(request.rawBody.toString('utf8'), headers)).not.toThrow();
    }

    // No purchase, points or revenue: the developer's purchases and the app's earnings are untouched.
    const { myPurchases } = await developer.ok<{ myPurchases: { edges: unknown[] } }>('{ myPurchases { edges { node { purchaseId } } } }');
    expect(myPurchases.edges).toEqual([]);
    const { myEarnings } = await developer.ok<{ myEarnings: { appId: string; salesCount: number }[] }>('{ myEarnings { appId salesCount } }');
    expect(myEarnings.find((e) => e.appId === appId)?.salesCount ?? 0).toBe(0);
    const [{ n }] = await plaza.services.db.query('SELECT count(*)::int AS n FROM purchases WHERE app_id = $1', [appId]);
    expect(n).toBe(0);
  });
});
