import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

const POINT_VALUE_VND = 1234;
const PRICE = 37;
const AMOUNT = PRICE * POINT_VALUE_VND; // 45,658 VND
const SHARE = Math.floor((AMOUNT * 80) / 100); // 36,526 VND (36,526.4 rounded down)

const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId appId userId pricePoints amountVnd developerShareVnd status createdAt } }';
const INSTALL = 'mutation($appId: ID!) { installApp(appId: $appId) { id appId userId purchaseId installedAt uninstalledAt } }';
const UNINSTALL = 'mutation($appId: ID!) { uninstallApp(appId: $appId) { id purchaseId uninstalledAt } }';
const REFUND = 'mutation($purchaseId: String!, $reason: String) { refundPurchase(purchaseId: $purchaseId, reason: $reason) { purchaseId status amountVnd developerShareVnd } }';
const CREDIT = 'mutation($userId: ID!, $points: Int!, $reason: String!) { creditPoints(userId: $userId, points: $points, reason: $reason) { userId points } }';
const ME = '{ me { id points } myLibrary { appId purchaseId app { id name } } }';
const EARNINGS = '{ myEarnings { appId salesCount grossSalesVnd developerShareVnd refundsCount refundedVnd refundedDeveloperShareVnd netDeveloperShareVnd } }';
const LAUNCH = 'mutation($appId: ID!) { launchApp(appId: $appId) { appId appUrl targetOrigin token userId locale theme expiresAt } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  plaza = await startTestPlaza({ POINT_VALUE_VND: String(POINT_VALUE_VND), WEBHOOK_RETRY_SCHEDULE: '200ms' });
  developer = await plaza.signIn('seller@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  admin = await plaza.signIn(ADMIN_EMAIL);
  receiver = await WebhookReceiver.start();
});

async function listedApp(overrides: Record<string, unknown> = {}) {
  const app = await submitApp(developer, { webhookUrl: receiver.url(), ...overrides });
  await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  return app;
}
const paidApp = () => listedApp({ pricing: 'PAID', pricePoints: PRICE });
async function buyerWith(points: number, email = `buyer-${Math.random().toString(36).slice(2)}@users.test`) {
  const buyer = await plaza.signIn(email);
  if (points > 0) await admin.ok(CREDIT, { userId: buyer.userId, points, reason: 'test balance' });
  return buyer;
}
const count = async (table: string) => Number((await plaza.services.db.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);
const tables = ['purchases', 'installations', 'revenue_ledger', 'webhook_deliveries', 'notifications'];
const snapshot = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)])));

/** The webhook requests the receiver got for one purchase id, parsed, in arrival order. */
async function eventsFor(purchaseId: string, expected: number) {
  return vi.waitFor(
    () => {
      const bodies = receiver.requests.map((r) => JSON.parse(r.rawBody.toString())).filter((b) => b.purchase_id === purchaseId);
      if (bodies.length < expected) throw new Error(`${bodies.length} of ${expected} webhook requests for ${purchaseId}: ${JSON.stringify(bodies)}`);
      return bodies;
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe('buying a paid app', () => {
  it('debits exactly the price, splits 80% to the developer in integer VND, and sends app.purchased', async () => {
    const app = await paidApp();
    const buyer = await buyerWith(100);
    const { purchaseApp } = await buyer.ok<{ purchaseApp: any }>(BUY, { appId: app.id });
    expect(purchaseApp).toMatchObject({ appId: app.id, userId: buyer.userId, pricePoints: PRICE, amountVnd: AMOUNT, developerShareVnd: SHARE, status: 'COMPLETED' });
    expect(purchaseApp.purchaseId).toMatch(/^APP-\d{13}-[0-9A-HJKMNP-TV-Z]{6}$/);

    const { me, myLibrary } = await buyer.ok<{ me: any; myLibrary: any[] }>(ME);
    expect(me.points).toBe(100 - PRICE);
    expect(myLibrary).toEqual([{ appId: app.id, purchaseId: purchaseApp.purchaseId, app: { id: app.id, name: app.name } }]);

    // The columns are bigint, which pg reads as strings; these amounts fit 32 bits, so compare them as numbers.
    const ledger = await plaza.services.db.query(
      'SELECT kind, gross_vnd::int AS gross_vnd, developer_share_vnd::int AS developer_share_vnd, platform_share_vnd::int AS platform_share_vnd, developer_id FROM revenue_ledger WHERE purchase_id = $1',
      [purchaseApp.purchaseId],
    );
    expect(ledger).toEqual([{ kind: 'SALE', gross_vnd: AMOUNT, developer_share_vnd: SHARE, platform_share_vnd: AMOUNT - SHARE, developer_id: developer.userId }]);

    const [event] = await eventsFor(purchaseApp.purchaseId, 1);
    expect(Object.keys(event)).toEqual(['event', 'app_id', 'user_id', 'purchase_id', 'amount_vnd', 'developer_share_vnd', 'timestamp']);
    expect(event).toMatchObject({
      event: 'app.purchased',
      app_id: app.id,
      user_id: buyer.userId,
      purchase_id: purchaseApp.purchaseId,
      amount_vnd: AMOUNT,
      developer_share_vnd: SHARE,
    });
    expect(event.timestamp).toBe(new Date(purchaseApp.createdAt).toISOString());
  });

  it('with too few points: a clear error, and nothing written anywhere', async () => {
    const app = await paidApp();
    const buyer = await buyerWith(PRICE - 1);
    const before = await snapshot();
    const error = await buyer.error(BUY, { appId: app.id });
    expect(error.extensions).toEqual({ code: 'CONFLICT', reason: 'INSUFFICIENT_POINTS' });
    expect(error.message).toBe(`Not enough points: this app costs ${PRICE} points and you have ${PRICE - 1}`);
    expect(await snapshot()).toEqual(before);
    expect((await buyer.ok<{ me: any }>(ME)).me.points).toBe(PRICE - 1);
  });

  it('refuses what cannot be bought, changing nothing', async () => {
    const paid = await paidApp();
    const free = await listedApp();
    const pending = await submitApp(developer, { pricing: 'PAID', pricePoints: 5 });
    const buyer = await buyerWith(500);
    await buyer.ok(BUY, { appId: paid.id });
    const before = await snapshot();
    const cases: [string, string, Record<string, unknown>][] = [
      [BUY, paid.id, { code: 'CONFLICT', reason: 'ALREADY_OWNED' }],
      [BUY, free.id, { code: 'BAD_USER_INPUT', field: 'appId', reason: 'FREE_APP' }],
      [BUY, pending.id, { code: 'BAD_USER_INPUT', field: 'appId', reason: 'APP_NOT_APPROVED' }],
      [INSTALL, pending.id, { code: 'BAD_USER_INPUT', field: 'appId', reason: 'APP_NOT_APPROVED' }],
      [UNINSTALL, free.id, { code: 'CONFLICT', reason: 'NOT_OWNED' }],
    ];
    for (const [mutation, appId, extensions] of cases) expect((await buyer.error(mutation, { appId })).extensions, `${mutation} ${appId}`).toEqual(extensions);
    const stranger = await buyerWith(500);
    expect((await stranger.error(INSTALL, { appId: paid.id })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'appId', reason: 'PAID_APP' });
    expect(await snapshot()).toEqual(before);
    expect((await buyer.ok<{ me: any }>(ME)).me.points).toBe(500 - PRICE);
  });

  it('two purchases of the same app by the same user racing each other: exactly one wins', async () => {
    const app = await paidApp();
    const buyer = await buyerWith(PRICE * 5);
    const results = await Promise.all(Array.from({ length: 5 }, () => buyer.request(BUY, { appId: app.id })));
    const won = results.filter((r) => r.data?.purchaseApp);
    const lost = results.filter((r) => r.errors);
    expect(won).toHaveLength(1);
    expect(lost.map((r) => r.errors?.[0]?.extensions)).toEqual(Array(4).fill({ code: 'CONFLICT', reason: 'ALREADY_OWNED' }));
    expect((await buyer.ok<{ me: any }>(ME)).me.points).toBe(PRICE * 4);
    const [{ n }] = await plaza.services.db.query('SELECT count(*)::int AS n FROM purchases WHERE app_id = $1 AND user_id = $2', [app.id, buyer.userId]);
    expect(n).toBe(1);
  });
});

describe('free apps', () => {
  it('install and uninstall, each sending its event with the install’s purchase id and zero amounts', async () => {
    const app = await listedApp();
    const user = await buyerWith(0);
    const { installApp } = await user.ok<{ installApp: any }>(INSTALL, { appId: app.id });
    expect(installApp).toMatchObject({ appId: app.id, userId: user.userId, uninstalledAt: null });
    expect(installApp.purchaseId).toMatch(/^APP-\d{13}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect((await user.error(INSTALL, { appId: app.id })).extensions).toEqual({ code: 'CONFLICT', reason: 'ALREADY_OWNED' });
    const { uninstallApp } = await user.ok<{ uninstallApp: any }>(UNINSTALL, { appId: app.id });
    expect(uninstallApp.purchaseId).toBe(installApp.purchaseId);
    expect((await user.ok<{ myLibrary: any[] }>(ME)).myLibrary).toEqual([]);

    const events = await eventsFor(installApp.purchaseId, 2);
    expect(events.map((e) => [e.event, e.amount_vnd, e.developer_share_vnd, e.user_id])).toEqual([
      ['app.installed', 0, 0, user.userId],
      ['app.uninstalled', 0, 0, user.userId],
    ]);
    expect((await user.ok<{ me: any }>(ME)).me.points).toBe(0);
  });
});

describe('refunds', () => {
  it('return the points, reverse the developer share, end access and send app.refunded; only once', async () => {
    const app = await paidApp();
    const buyer = await buyerWith(PRICE);
    const { purchaseApp } = await buyer.ok<{ purchaseApp: any }>(BUY, { appId: app.id });
    const { refundPurchase } = await admin.ok<{ refundPurchase: any }>(REFUND, { purchaseId: purchaseApp.purchaseId, reason: 'accidental purchase' });
    expect(refundPurchase).toMatchObject({ status: 'REFUNDED', amountVnd: AMOUNT, developerShareVnd: SHARE });

    const { me, myLibrary } = await buyer.ok<{ me: any; myLibrary: any[] }>(ME);
    expect(me.points).toBe(PRICE);
    expect(myLibrary).toEqual([]);
    const ledger = await plaza.services.db.query(
      'SELECT kind, gross_vnd::int AS gross_vnd, developer_share_vnd::int AS developer_share_vnd FROM revenue_ledger WHERE purchase_id = $1 ORDER BY id',
      [purchaseApp.purchaseId],
    );
    expect(ledger).toEqual([
      { kind: 'SALE', gross_vnd: AMOUNT, developer_share_vnd: SHARE },
      { kind: 'REFUND', gross_vnd: -AMOUNT, developer_share_vnd: -SHARE },
    ]);
    const events = await eventsFor(purchaseApp.purchaseId, 2);
    expect(events.map((e) => [e.event, e.amount_vnd, e.developer_share_vnd])).toEqual([
      ['app.purchased', AMOUNT, SHARE],
      ['app.refunded', AMOUNT, SHARE],
    ]);
    // Access ended: the app cannot be opened any more.
    expect((await buyer.error(LAUNCH, { appId: app.id })).extensions?.code).toBe('FORBIDDEN');

    const before = await snapshot();
    expect((await admin.error(REFUND, { purchaseId: purchaseApp.purchaseId })).extensions).toEqual({ code: 'CONFLICT', reason: 'ALREADY_REFUNDED' });
    expect((await admin.error(REFUND, { purchaseId: 'APP-1700000000000-ZZZZZZ' })).extensions).toEqual({ code: 'NOT_FOUND', field: 'purchaseId' });
    expect((await buyer.error(REFUND, { purchaseId: purchaseApp.purchaseId })).extensions?.code).toBe('FORBIDDEN');
    expect(await snapshot()).toEqual(before);
    // Refunded, the app can be bought again.
    await buyer.ok(BUY, { appId: app.id });
  });

  it('tell the buyer: a notification names the app, the points that came back and the reason, and only the buyer gets it', async () => {
    const app = await paidApp();
    const buyer = await buyerWith(PRICE);
    const { purchaseApp } = await buyer.ok<{ purchaseApp: any }>(BUY, { appId: app.id });
    await admin.ok(REFUND, { purchaseId: purchaseApp.purchaseId, reason: 'charged twice' });

    const NOTIFICATIONS = '{ notifications(first: 5) { edges { node { kind message appId appName note points readAt } } } }';
    const { notifications } = await buyer.ok<{ notifications: { edges: { node: any }[] } }>(NOTIFICATIONS);
    expect(notifications.edges.map(({ node }) => node)).toEqual([
      {
        kind: 'PURCHASE_REFUNDED',
        message: `Your purchase of ${app.name} was refunded: ${PRICE} points are back in your balance. Reason: charged twice`,
        appId: app.id,
        appName: app.name,
        note: 'charged twice',
        // The figure as a fact too, for clients that say it in their reader's language.
        points: PRICE,
        readAt: null,
      },
    ]);
    const developerHeard = await developer.ok<{ notifications: { edges: { node: any }[] } }>(NOTIFICATIONS);
    expect(developerHeard.notifications.edges.map(({ node }) => node.kind)).not.toContain('PURCHASE_REFUNDED');
  });

  it('of a bought app that was reinstalled end the reinstall too; the reinstall itself is free and not refundable', async () => {
    const app = await paidApp();
    const buyer = await buyerWith(PRICE);
    const { purchaseApp } = await buyer.ok<{ purchaseApp: any }>(BUY, { appId: app.id });
    await buyer.ok(UNINSTALL, { appId: app.id });
    const before = await snapshot();
    const { installApp } = await buyer.ok<{ installApp: any }>(INSTALL, { appId: app.id });
    // An acquisition of its own: a new purchase id, nothing charged, no sale in the ledger.
    expect(installApp.purchaseId).not.toBe(purchaseApp.purchaseId);
    expect(await snapshot()).toEqual({ ...before, purchases: before.purchases + 1, installations: before.installations + 1, webhook_deliveries: before.webhook_deliveries + 1 });
    expect((await buyer.ok<{ me: any }>(ME)).me.points).toBe(0);
    const [installed] = await eventsFor(installApp.purchaseId, 1);
    expect(installed).toMatchObject({ event: 'app.installed', amount_vnd: 0, developer_share_vnd: 0 });

    const refundReinstall = await admin.error(REFUND, { purchaseId: installApp.purchaseId });
    expect(refundReinstall.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'purchaseId', reason: 'FREE_REINSTALL' });
    expect(refundReinstall.message).toBe(`This is a free reinstall of a bought app: refund the original purchase ${purchaseApp.purchaseId} instead`);

    await admin.ok(REFUND, { purchaseId: purchaseApp.purchaseId });
    expect((await buyer.ok<{ myLibrary: any[] }>(ME)).myLibrary).toEqual([]);
    expect((await buyer.error(LAUNCH, { appId: app.id })).extensions?.code).toBe('FORBIDDEN');
    // Bought no more: installing again needs a new purchase.
    expect((await buyer.error(INSTALL, { appId: app.id })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'appId', reason: 'PAID_APP' });
  });
});

describe('earnings', () => {
  it('add up per app from the ledger: sales, 80% share, refunds and net', async () => {
    const seller = await plaza.signIn('earner@studio.test');
    const app = await submitApp(seller, { pricing: 'PAID', pricePoints: PRICE });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const buyers = await Promise.all([buyerWith(PRICE), buyerWith(PRICE), buyerWith(PRICE)]);
    const purchases = await Promise.all(buyers.map(async (b) => (await b.ok<{ purchaseApp: any }>(BUY, { appId: app.id })).purchaseApp));
    await admin.ok(REFUND, { purchaseId: purchases[0].purchaseId });
    const { myEarnings } = await seller.ok<{ myEarnings: any[] }>(EARNINGS);
    expect(myEarnings).toEqual([
      {
        appId: app.id,
        salesCount: 3,
        grossSalesVnd: 3 * AMOUNT,
        developerShareVnd: 3 * SHARE,
        refundsCount: 1,
        refundedVnd: AMOUNT,
        refundedDeveloperShareVnd: SHARE,
        netDeveloperShareVnd: 2 * SHARE,
      },
    ]);
    const { app: withEarnings } = await seller.ok<{ app: any }>('query($id: ID!) { app(id: $id) { earnings { netDeveloperShareVnd } } }', { id: app.id });
    expect(withEarnings.earnings.netDeveloperShareVnd).toBe(2 * SHARE);
    expect((await developer.ok<{ app: any }>('query($id: ID!) { app(id: $id) { earnings { netDeveloperShareVnd } } }', { id: app.id })).app.earnings).toBeNull();
  });
});

describe('points', () => {
  it('are credited by admins only, with a reason, for a known user', async () => {
    const user = await buyerWith(0);
    expect((await admin.ok<{ creditPoints: any }>(CREDIT, { userId: user.userId, points: 250, reason: 'welcome bonus' })).creditPoints).toEqual({
      userId: user.userId,
      points: 250,
    });
    expect((await user.error(CREDIT, { userId: user.userId, points: 10, reason: 'self' })).extensions?.code).toBe('FORBIDDEN');
    expect((await admin.error(CREDIT, { userId: user.userId, points: 0, reason: 'x' })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'points' });
    expect((await admin.error(CREDIT, { userId: user.userId, points: 5, reason: ' ' })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'reason' });
    expect((await admin.error(CREDIT, { userId: 'dev_nobody', points: 5, reason: 'x' })).extensions).toEqual({ code: 'NOT_FOUND', field: 'userId' });
    expect((await user.ok<{ me: any }>(ME)).me.points).toBe(250);
  });
});

describe('launchApp session tokens', () => {
  it('are ES256 JWTs with kid, iss, aud = app, sub = user, jti and 5 minutes, verifiable against the JWKS', async () => {
    const app = await listedApp({ appUrl: 'https://apps.example.com:8443/quiz/play?x=1' });
    const user = await buyerWith(0);
    await user.ok(INSTALL, { appId: app.id });
    await user.ok('mutation { updatePreferences(locale: "vi", theme: "dark") { locale theme } }');
    const { launchApp } = await user.ok<{ launchApp: any }>(LAUNCH, { appId: app.id });
    expect(launchApp).toMatchObject({
      appId: app.id,
      appUrl: 'https://apps.example.com:8443/quiz/play?x=1',
      targetOrigin: 'https://apps.example.com:8443',
      userId: user.userId,
      locale: 'vi',
      theme: 'dark',
    });

    const jwks = createRemoteJWKSet(new URL(`${plaza.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(launchApp.token, jwks, { issuer: plaza.services.config.platformOrigin, audience: app.id, algorithms: ['ES256'] });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: expect.stringMatching(/^sk_/) });
    expect(payload.sub).toBe(user.userId);
    expect(payload.jti).toEqual(expect.any(String));
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(payload.exp! * 1000).toBe(Date.parse(launchApp.expiresAt));
    await expect(jwtVerify(launchApp.token, jwks, { issuer: plaza.services.config.platformOrigin, audience: 'app_someone_else' })).rejects.toThrow();
  });

  it('keep verifying after a new signing key is added', async () => {
    const app = await listedApp();
    const user = await buyerWith(0);
    await user.ok(INSTALL, { appId: app.id });
    const before = (await user.ok<{ launchApp: any }>(LAUNCH, { appId: app.id })).launchApp.token;
    await admin.ok('mutation { rotateSessionSigningKey }');
    const after = (await user.ok<{ launchApp: any }>(LAUNCH, { appId: app.id })).launchApp.token;
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
    const jwks = createRemoteJWKSet(new URL(`${plaza.url}/.well-known/jwks.json`));
    for (const token of [before, after]) await jwtVerify(token, jwks, { audience: app.id });
  });

  it('are for users who have the app, its developer, and reviewers of an app under review', async () => {
    const listed = await listedApp();
    const stranger = await buyerWith(0);
    expect((await stranger.error(LAUNCH, { appId: listed.id })).extensions?.code).toBe('FORBIDDEN');
    await developer.ok(LAUNCH, { appId: listed.id });
    const pending = await submitApp(developer);
    await reviewer.ok(LAUNCH, { appId: pending.id });
    expect((await stranger.error(LAUNCH, { appId: pending.id })).extensions?.code).toBe('NOT_FOUND');
  });
});
