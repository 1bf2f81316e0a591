import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The app SDK's receiver and the sample app's premium ledger, as an app developer runs them (from source).
import { createWebhookHandler, MemoryDedupeStore, type WebhookEvent } from '../../packages/app-sdk/src/server/index.js';
import { PremiumLedger } from '../../examples/sample-app/src/server/premium-ledger.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DECIDE, submitApp } from './helpers/factories.js';

const POINT_VALUE_VND = 1000;
const PRICE = 3;
const AMOUNT = PRICE * POINT_VALUE_VND;
const SHARE = Math.floor((AMOUNT * 80) / 100);

const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
const INSTALL = 'mutation($appId: ID!) { installApp(appId: $appId) { purchaseId originalPurchaseId } }';
const UNINSTALL = 'mutation($appId: ID!) { uninstallApp(appId: $appId) { purchaseId } }';
const REFUND = 'mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId) { status } }';
const DELIVERIES = `query($appId: ID!) { webhookDeliveries(filter: { appId: $appId }, first: 50) {
  edges { node { id eventName purchaseId status attempts { trigger statusCode responseBodyExcerpt } } } } }`;

let plaza: TestPlaza;
let sdkReceiver: Server;
let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();

beforeAll(async () => {
  plaza = await startTestPlaza({ POINT_VALUE_VND: String(POINT_VALUE_VND), WEBHOOK_RETRY_SCHEDULE: '200ms' });
  // Listening before the app is submitted (its Webhook URL names this port); the handler needs the secret the submission creates.
  sdkReceiver = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => sdkReceiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  sdkReceiver.closeAllConnections();
  await new Promise((resolve) => sdkReceiver.close(resolve));
});

describe('a bought app uninstalled and installed again, through the SDK receiver', () => {
  it('is five business events, each processed exactly once, with the reinstall free and the premium ledger right', async () => {
    const developer = await plaza.signIn('dedupe-dev@studio.test');
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const admin = await plaza.signIn(ADMIN_EMAIL);
    const buyer = await plaza.signIn('dedupe-buyer@users.test');
    const port = (sdkReceiver.address() as { port: number }).port;
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: PRICE, webhookUrl: `http://127.0.0.1:${port}/webhooks/plaza` });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const { revealClientSecret } = await developer.ok<{ revealClientSecret: { value: string } }>('mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }', {
      appId: app.id,
    });

    const processed: WebhookEvent[] = [];
    const ledger = new PremiumLedger();
    // The SDK's defaults, as the sample app uses them: the in-memory dedupe store and the 5-minute replay window.
    handle = createWebhookHandler({
      clientSecret: revealClientSecret.value,
      seen: new MemoryDedupeStore(),
      onEvent: (event, meta) => {
        processed.push(event);
        ledger.apply(event, meta);
      },
    });
    await admin.ok('mutation($userId: ID!) { creditPoints(userId: $userId, points: 10, reason: "dedupe cycle") { points } }', { userId: buyer.userId });

    // Each step waits for its event to be processed, so the order seen is the order done.
    const step = async (action: () => Promise<unknown>) => {
      const before = processed.length;
      await action();
      await vi.waitFor(() => expect(processed.length).toBe(before + 1), { timeout: 10_000, interval: 50 });
    };
    let purchaseId = '';
    let reinstall = { purchaseId: '', originalPurchaseId: '' };
    await step(
      async () =>
        ({
          purchaseApp: { purchaseId },
        } = await buyer.ok<{ purchaseApp: { purchaseId: string } }>(BUY, { appId: app.id })),
    );
    expect(ledger.isPremium(buyer.userId)).toBe(true);
    await step(() => buyer.ok(UNINSTALL, { appId: app.id }));
    expect(ledger.isPremium(buyer.userId)).toBe(true);
    await step(async () => ({ installApp: reinstall } = await buyer.ok<{ installApp: typeof reinstall }>(INSTALL, { appId: app.id })));
    expect(ledger.isPremium(buyer.userId)).toBe(true);
    await step(() => buyer.ok(UNINSTALL, { appId: app.id }));
    await step(() => admin.ok(REFUND, { purchaseId }));
    expect(ledger.isPremium(buyer.userId)).toBe(false);

    const reinstallId = reinstall.purchaseId;
    expect(reinstallId).toMatch(/^APP-\d{13}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(reinstallId).not.toBe(purchaseId);
    expect(reinstall.originalPurchaseId).toBe(purchaseId);
    expect(processed.map((e) => [e.event, e.purchase_id, e.amount_vnd, e.developer_share_vnd])).toEqual([
      ['app.purchased', purchaseId, AMOUNT, SHARE],
      ['app.uninstalled', purchaseId, AMOUNT, SHARE],
      ['app.installed', reinstallId, 0, 0],
      ['app.uninstalled', reinstallId, 0, 0],
      ['app.refunded', purchaseId, AMOUNT, SHARE],
    ]);

    // What the receiver answered is in Plaza's delivery log: every delivery "OK", none "Already processed".
    const deliveriesOf = async () =>
      (await developer.ok<{ webhookDeliveries: { edges: { node: any }[] } }>(DELIVERIES, { appId: app.id })).webhookDeliveries.edges.map((e) => e.node);
    // The receiver processes an event before it answers, and the worker records the answer after it arrives:
    // the last delivery is in the log as SUCCEEDED a moment after the receiver has seen it, so wait for that fact.
    let deliveries: any[] = [];
    await vi.waitFor(
      async () => {
        deliveries = await deliveriesOf();
        expect(deliveries).toHaveLength(5);
        for (const delivery of deliveries) expect(delivery.status, delivery.eventName).not.toBe('PENDING');
      },
      { timeout: 10_000, interval: 100 },
    );
    for (const delivery of deliveries) {
      expect(delivery.status, delivery.eventName).toBe('SUCCEEDED');
      expect(delivery.attempts.map((a: any) => [a.statusCode, a.responseBodyExcerpt])).toEqual([[200, 'OK']]);
    }

    // Deduplication still holds where it should: a redelivery of the second uninstall is recognised, not processed again.
    const secondUninstall = deliveries.find((d) => d.eventName === 'app.uninstalled' && d.purchaseId === reinstallId);
    await developer.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: secondUninstall.id });
    await vi.waitFor(
      async () => {
        const again = (await deliveriesOf()).find((d) => d.id === secondUninstall.id);
        expect(again.attempts.map((a: any) => [a.trigger, a.responseBodyExcerpt])).toEqual([
          ['SCHEDULED', 'OK'],
          ['MANUAL', 'Already processed'],
        ]);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(processed).toHaveLength(5);

    // Money: one sale and its refund in the ledger, the points back where they were; the reinstall moved nothing.
    const ledgerRows = await plaza.services.db.query('SELECT purchase_id, kind, gross_vnd::int AS gross FROM revenue_ledger WHERE app_id = $1 ORDER BY id', [app.id]);
    expect(ledgerRows).toEqual([
      { purchase_id: purchaseId, kind: 'SALE', gross: AMOUNT },
      { purchase_id: purchaseId, kind: 'REFUND', gross: -AMOUNT },
    ]);
    const movements = await plaza.services.db.query('SELECT delta::int AS delta, reason FROM point_movements WHERE user_id = $1 ORDER BY id', [buyer.userId]);
    expect(movements.map((m: { delta: number }) => m.delta)).toEqual([10, -PRICE, PRICE]);
    expect((await buyer.ok<{ me: { points: number } }>('{ me { points } }')).me.points).toBe(10);
  });
});
