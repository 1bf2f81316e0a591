import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';

// purchasesByBuyerEmail: an admin answering "refund my purchase" finds it by the address the buyer writes from,
// not by a purchase id the buyer does not know.

const SEARCH = `query($email: String!, $first: Int) {
  purchasesByBuyerEmail(email: $email, first: $first) { edges { node { purchaseId appId userId kind status pricePoints } } pageInfo { hasNextPage } }
}`;

let plaza: TestPlaza;
let admin: GraphQLTestClient;
let buyer: GraphQLTestClient;
const ids = { paidApp: '', freeApp: '', bought: '', installed: '' };

beforeAll(async () => {
  plaza = await startTestPlaza();
  admin = await plaza.signIn(ADMIN_EMAIL);
  const reviewer = await plaza.signIn(REVIEWER_EMAIL);
  const developer = await plaza.signIn('seller@studio.test');
  buyer = await plaza.signIn('tran.thi.mai@shop.test');
  const bystander = await plaza.signIn('someone.else@shop.test');
  ids.paidApp = (await submitApp(developer, { name: 'Paid Maps', pricing: 'PAID', pricePoints: 20 })).id;
  ids.freeApp = (await submitApp(developer, { name: 'Free Notes' })).id;
  for (const appId of [ids.paidApp, ids.freeApp]) await reviewer.ok(DECIDE, { input: { appId, outcome: 'APPROVED' } });
  for (const person of [buyer, bystander])
    await admin.ok(`mutation($userId: ID!) { creditPoints(userId: $userId, points: 50, reason: "test") { points } }`, { userId: person.userId });
  ids.bought = (
    await buyer.ok<{ purchaseApp: { purchaseId: string } }>(`mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }`, { appId: ids.paidApp })
  ).purchaseApp.purchaseId;
  ids.installed = (
    await buyer.ok<{ installApp: { purchaseId: string } }>(`mutation($appId: ID!) { installApp(appId: $appId) { purchaseId } }`, { appId: ids.freeApp })
  ).installApp.purchaseId;
  // Another person's purchase of the same app, which the search must leave out.
  await bystander.ok(`mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }`, { appId: ids.paidApp });
  // The review pre-checks of both apps run in the background and read each app by id as they start: finished here, so
  // that those reads do not land among the reads of a request the tests below count (they did, in about half the runs).
  await vi.waitFor(
    async () => {
      const [{ n }] = await plaza.services.db.query(`SELECT count(*)::int AS n FROM app_pre_checks WHERE app_id = ANY($1::text[]) AND completed_at IS NULL`, [
        [ids.paidApp, ids.freeApp],
      ]);
      if (n > 0) throw new Error(`${n} pre-checks still running`);
    },
    { timeout: 30_000, interval: 100 },
  );
});

describe('purchasesByBuyerEmail', () => {
  it('finds the buyer’s purchases and installs, newest first, by their exact address in any case', async () => {
    const { purchasesByBuyerEmail } = await admin.ok<{ purchasesByBuyerEmail: any }>(SEARCH, { email: 'Tran.Thi.Mai@SHOP.test' });
    expect(purchasesByBuyerEmail.edges.map((edge: any) => edge.node)).toEqual([
      { purchaseId: ids.installed, appId: ids.freeApp, userId: buyer.userId, kind: 'INSTALL', status: 'COMPLETED', pricePoints: 0 },
      { purchaseId: ids.bought, appId: ids.paidApp, userId: buyer.userId, kind: 'PURCHASE', status: 'COMPLETED', pricePoints: 20 },
    ]);
    // Pages as every list does.
    const first = (await admin.ok<{ purchasesByBuyerEmail: any }>(SEARCH, { email: 'tran.thi.mai@shop.test', first: 1 })).purchasesByBuyerEmail;
    expect(first.edges.map((edge: any) => edge.node.purchaseId)).toEqual([ids.installed]);
    expect(first.pageInfo.hasNextPage).toBe(true);
  });

  it('names each purchase’s app as listed, reading a page’s apps in one statement', async () => {
    const logQuery = vi.spyOn(plaza.services.db.logger, 'logQuery');
    try {
      const { purchasesByBuyerEmail } = await admin.ok<{ purchasesByBuyerEmail: any }>(
        `query($email: String!) { purchasesByBuyerEmail(email: $email) { edges { node { appId app { id name } } } } }`,
        { email: 'tran.thi.mai@shop.test' },
      );
      expect(purchasesByBuyerEmail.edges.map((edge: any) => edge.node)).toEqual([
        { appId: ids.freeApp, app: { id: ids.freeApp, name: 'Free Notes' } },
        { appId: ids.paidApp, app: { id: ids.paidApp, name: 'Paid Maps' } },
      ]);
      const appReads = logQuery.mock.calls.map((call) => String(call[0])).filter((sql) => /FROM "apps"/.test(sql));
      expect(appReads).toHaveLength(1);
    } finally {
      logQuery.mockRestore();
    }
  });

  it('is exact: a part of an address, or one nobody signs in with, finds nothing', async () => {
    for (const email of ['thi.mai@shop.test', 'tran.thi.mai@shop.tes', 'nobody@shop.test']) {
      const { purchasesByBuyerEmail } = await admin.ok<{ purchasesByBuyerEmail: any }>(SEARCH, { email });
      expect(purchasesByBuyerEmail, email).toEqual({ edges: [], pageInfo: { hasNextPage: false } });
    }
  });

  it('refuses what is not one e-mail address with an error naming the field', async () => {
    for (const email of ['', 'tran.thi.mai', 'tran thi mai@shop.test', '%@shop.test OR 1=1', `${'a'.repeat(320)}@shop.test`]) {
      const error = await admin.error(SEARCH, { email });
      expect(error.extensions, JSON.stringify(email)).toEqual({ code: 'BAD_USER_INPUT', field: 'email' });
      expect(error.message).toMatch(/^email must /);
    }
  });

  it('is for admins alone: the buyer, a developer, a reviewer and the public are refused', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const developer = await plaza.signIn('seller@studio.test');
    for (const [who, client, code] of [
      ['buyer', buyer, 'FORBIDDEN'],
      ['developer', developer, 'FORBIDDEN'],
      ['reviewer', reviewer, 'FORBIDDEN'],
      ['public', plaza.anonymous(), 'UNAUTHENTICATED'],
    ] as const) {
      const error = await client.error(SEARCH, { email: 'tran.thi.mai@shop.test' });
      expect(error.extensions?.code, who).toBe(code);
    }
  });
});
