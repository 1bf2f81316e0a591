import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, SUBMIT_APP, UPDATE_APP, submitApp, validAppInput } from './helpers/factories.js';

// Issue 24, item 2: a price whose VND value no purchase can charge is refused where it is set.
const POINT_VALUE_VND = 10_000;
const MAX_PRICE = 214_748; // floor(2,147,483,647 VND / 10,000): a purchase's amountVnd is a 32-bit Int

const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { amountVnd status } }';
const CREDIT = 'mutation($userId: ID!, $points: Int!, $reason: String!) { creditPoints(userId: $userId, points: $points, reason: $reason) { points } }';
const APP = 'query($id: ID!) { app(id: $id) { pricePoints status revision } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza({ POINT_VALUE_VND: String(POINT_VALUE_VND) });
  developer = await plaza.signIn('pricey@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  admin = await plaza.signIn(ADMIN_EMAIL);
});

const appCount = async () => Number((await plaza.services.db.query('SELECT count(*)::int AS n FROM apps'))[0].n);

function expectPriceRefused(error: { message: string; extensions?: Record<string, unknown> }) {
  expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'pricePoints' });
  expect(error.message).toContain(`at most ${MAX_PRICE} points`);
}

describe('a price no purchase could charge', () => {
  it('is refused at submission, naming pricePoints and the largest price allowed, and nothing is recorded', async () => {
    const before = await appCount();
    for (const pricePoints of [1_000_000, MAX_PRICE + 1]) {
      const error = await developer.error(SUBMIT_APP, { input: validAppInput({ pricing: 'PAID', pricePoints }) });
      expectPriceRefused(error);
    }
    expect(await appCount()).toBe(before);
  });

  it('the largest price allowed passes review and can be bought', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: MAX_PRICE });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const buyer = await plaza.signIn('rich@users.test');
    await admin.ok(CREDIT, { userId: buyer.userId, points: MAX_PRICE, reason: 'price limit test' });
    const { purchaseApp } = await buyer.ok<{ purchaseApp: { amountVnd: number; status: string } }>(BUY, { appId: app.id });
    expect(purchaseApp).toEqual({ amountVnd: MAX_PRICE * POINT_VALUE_VND, status: 'COMPLETED' });
  });

  it('is refused when an approved app is edited to it, and the app stays as it was', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 50 });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const before = await developer.ok(APP, { id: app.id });
    expectPriceRefused(await developer.error(UPDATE_APP, { id: app.id, input: { pricePoints: MAX_PRICE + 1 } }));
    expectPriceRefused(await developer.error(UPDATE_APP, { id: app.id, input: { pricing: 'PAID', pricePoints: 1_000_000 } }));
    expect(await developer.ok(APP, { id: app.id })).toEqual(before);

    // A webhook-only edit sends nothing to review, so a price listed before POINT_VALUE_VND was raised does not block it.
    await plaza.services.db.query('UPDATE apps SET price_points = 1000000 WHERE id = $1', [app.id]);
    const { updateApp } = await developer.ok<{ updateApp: { status: string } }>(UPDATE_APP, { id: app.id, input: { webhookUrl: 'https://hooks.example.com/plaza' } });
    expect(updateApp.status).toBe('APPROVED');
  });

  it('is refused on resubmission of a rejected app that still carries it (a price set under a smaller POINT_VALUE_VND)', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 50 });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['INVALID_ICON'] } });
    // What an app priced while one point was worth 1,000 VND holds after the operator raised it to 10,000.
    await plaza.services.db.query('UPDATE apps SET price_points = 1000000 WHERE id = $1', [app.id]);
    const before = await developer.ok(APP, { id: app.id });
    expectPriceRefused(await developer.error(UPDATE_APP, { id: app.id, input: { name: 'Quiz Time, fixed icon' } }));
    expect(await developer.ok(APP, { id: app.id })).toEqual(before);
    // Lowering the price is the way out.
    const { updateApp } = await developer.ok<{ updateApp: { status: string; pricePoints: number } }>(UPDATE_APP, { id: app.id, input: { pricePoints: MAX_PRICE } });
    expect(updateApp).toMatchObject({ status: 'PENDING_REVIEW', pricePoints: MAX_PRICE });
  });
});

describe('a pending version whose price became unchargeable', () => {
  it('cannot be approved (CONFLICT, PRICE_NOT_CHARGEABLE), stays pending, and can still be rejected', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 50 });
    // Submitted while one point was worth 1,000 VND; the operator has since raised it to 10,000.
    await plaza.services.db.query('UPDATE apps SET price_points = 1000000 WHERE id = $1', [app.id]);
    const before = await developer.ok(APP, { id: app.id });
    const refused = await reviewer.error(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    expect(refused.extensions).toMatchObject({ code: 'CONFLICT', reason: 'PRICE_NOT_CHARGEABLE' });
    expect(refused.message).toContain('1000000 points');
    expect(await developer.ok(APP, { id: app.id })).toEqual(before);
    const decisions = await plaza.services.db.query('SELECT count(*)::int AS n FROM review_decisions WHERE app_id = $1', [app.id]);
    expect(decisions[0].n).toBe(0);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['OTHER'], note: 'Lower the price' } });
    expect((await developer.ok<{ app: { status: string } }>(APP, { id: app.id })).app.status).toBe('REJECTED');
  });
});

describe('the price in VND', () => {
  const STORE = 'query($search: String) { storeApps(search: $search) { edges { node { name pricePoints priceVnd } } } }';

  it('is the price in points at this server’s POINT_VALUE_VND, null for a free app and for one no purchase can charge', async () => {
    const paid = await submitApp(developer, { name: 'Vnd Paid', pricing: 'PAID', pricePoints: 30 });
    const free = await submitApp(developer, { name: 'Vnd Free', pricing: 'FREE', pricePoints: null });
    const stale = await submitApp(developer, { name: 'Vnd Stale', pricing: 'PAID', pricePoints: 40 });
    for (const app of [paid, free, stale]) await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    // A price listed while one point was worth less: the store still answers, naming no VND price for it.
    await plaza.services.db.query(`UPDATE apps SET price_points = 1000000, published_listing = published_listing || '{"pricePoints": 1000000}'::jsonb WHERE id = $1`, [stale.id]);

    const anyone = plaza.anonymous();
    const { storeApps } = await anyone.ok<{ storeApps: { edges: { node: { name: string; pricePoints: number | null; priceVnd: number | null } }[] } }>(STORE, { search: 'Vnd ' });
    const byName = Object.fromEntries(storeApps.edges.map(({ node }) => [node.name, node]));
    expect(byName['Vnd Paid']).toEqual({ name: 'Vnd Paid', pricePoints: 30, priceVnd: 300_000 });
    expect(byName['Vnd Free']).toEqual({ name: 'Vnd Free', pricePoints: null, priceVnd: null });
    expect(byName['Vnd Stale']).toEqual({ name: 'Vnd Stale', pricePoints: 1_000_000, priceVnd: null });
  });
});
