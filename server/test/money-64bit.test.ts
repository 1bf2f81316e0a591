import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';

// Issue 15, item 4: sums and balances past 2^31 (2,147,483,647) read exactly, never "integer out of range".

const INT32_MAX = 2_147_483_647;
const PRICE_POINTS = 1_000_000; // the highest price: 1,000,000,000 VND at the default 1,000 VND a point
const CREDIT = 'mutation($userId: ID!, $points: Int!) { creditPoints(userId: $userId, points: $points, reason: "test") { userId points } }';
const EARNINGS = 'salesCount grossSalesVnd developerShareVnd refundsCount refundedVnd refundedDeveloperShareVnd netDeveloperShareVnd';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  [developer, reviewer, admin] = await Promise.all([plaza.signIn('big-sales@studio.test'), plaza.signIn(REVIEWER_EMAIL), plaza.signIn(ADMIN_EMAIL)]);
});

const setBalance = (userId: string, points: number) => plaza.services.db.query('UPDATE accounts SET points = $2 WHERE id = $1', [userId, points]);

describe('earnings past 2^31 VND', () => {
  it('read exactly in myEarnings and App.earnings, before and after a refund', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: PRICE_POINTS });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    // Three real purchases of 1,000,000,000 VND: 3,000,000,000 gross, 2,400,000,000 for the developer.
    const buyers = await Promise.all([1, 2, 3].map((n) => plaza.signIn(`big-buyer-${n}@plaza.test`)));
    const purchases: string[] = [];
    for (const buyer of buyers) {
      await admin.ok(CREDIT, { userId: buyer.userId, points: PRICE_POINTS });
      purchases.push(
        (await buyer.ok<{ purchaseApp: { purchaseId: string } }>('mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }', { appId: app.id })).purchaseApp.purchaseId,
      );
    }
    const sold = {
      appId: app.id,
      salesCount: 3,
      grossSalesVnd: 3_000_000_000,
      developerShareVnd: 2_400_000_000,
      refundsCount: 0,
      refundedVnd: 0,
      refundedDeveloperShareVnd: 0,
      netDeveloperShareVnd: 2_400_000_000,
    };
    expect(sold.grossSalesVnd).toBeGreaterThan(INT32_MAX);
    const read = async () => {
      const { myEarnings } = await developer.ok<{ myEarnings: Record<string, unknown>[] }>(`{ myEarnings { appId ${EARNINGS} } }`);
      const { app: withEarnings } = await developer.ok<{ app: { earnings: Record<string, unknown> } }>(`query($id: ID!) { app(id: $id) { earnings { appId ${EARNINGS} } } }`, {
        id: app.id,
      });
      return { myEarnings: myEarnings.find((row) => row.appId === app.id), appEarnings: withEarnings.earnings };
    };
    expect(await read()).toEqual({ myEarnings: sold, appEarnings: sold });

    await admin.ok('mutation($id: String!) { refundPurchase(purchaseId: $id) { status } }', { id: purchases[0] });
    const afterRefund = { ...sold, refundsCount: 1, refundedVnd: 1_000_000_000, refundedDeveloperShareVnd: 800_000_000, netDeveloperShareVnd: 1_600_000_000 };
    expect(await read()).toEqual({ myEarnings: afterRefund, appEarnings: afterRefund });
  });
});

describe('points balances past 2^31', () => {
  it('read exactly through pointsExact, and the 32-bit points fields say so instead of a wrong number', async () => {
    const user = await plaza.signIn('whale@plaza.test');
    const balance = 5_000_000_000;
    await setBalance(user.userId, balance);
    const { me, myPointsBalance } = await user.ok<{ me: { pointsExact: number }; myPointsBalance: { pointsExact: number } }>(
      '{ me { pointsExact } myPointsBalance { pointsExact } }',
    );
    expect(me.pointsExact).toBe(balance);
    expect(myPointsBalance.pointsExact).toBe(balance);
    for (const query of ['{ me { points } }', '{ myPointsBalance { points } }']) {
      const error = await user.error(query);
      expect(error.extensions?.code).toBe('BAD_USER_INPUT');
      expect(error.message).toBe(`points is ${balance}, more than a GraphQL Int can carry (${INT32_MAX}); select pointsExact instead, which is exact`);
    }
  });

  it('grow past 2^31 through credits and pay for apps exactly', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 7 });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const user = await plaza.signIn('saver@plaza.test');
    await setBalance(user.userId, INT32_MAX - 3);
    const credited = await admin.request<{ creditPoints: unknown }>('mutation($userId: ID!) { creditPoints(userId: $userId, points: 10, reason: "test") { pointsExact } }', {
      userId: user.userId,
    });
    expect(credited.data?.creditPoints).toEqual({ pointsExact: INT32_MAX + 7 });
    await user.ok('mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }', { appId: app.id });
    expect((await user.ok<{ me: { pointsExact: number } }>('{ me { pointsExact } }')).me.pointsExact).toBe(INT32_MAX);
    // Back within 32 bits, the contract's Int answers again.
    expect((await user.ok<{ me: { points: number } }>('{ me { points } }')).me.points).toBe(INT32_MAX);
  });
});
