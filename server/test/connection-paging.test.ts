import { beforeAll, describe, expect, it } from 'vitest';
import { DECIDE, submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent } from './helpers/webhooks.js';

const ITEMS = 5;

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let hookApp: string;
/** Holds ITEMS API tokens and ITEMS purchases (free installs): lists of one account that only grow. */
let buyer: GraphQLTestClient;

beforeAll(async () => {
  const receiver = await WebhookReceiver.start();
  plaza = await startTestPlaza({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h' });
  developer = await plaza.signIn('pager@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  // Twice ITEMS apps: half approved (the store, and one notification each), half left in the review queue.
  const apps = [];
  for (let i = 0; i < 2 * ITEMS; i++) apps.push(await submitApp(developer, { name: `Pager ${i}`, webhookUrl: receiver.url() }));
  for (const app of apps.slice(0, ITEMS)) await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED', revision: app.revision } });
  hookApp = apps[0].id;
  for (let i = 0; i < ITEMS; i++) await emitEvent(plaza, hookApp);
  buyer = await plaza.signIn('collector@studio.test');
  // Five acquisitions, none of the hook app (whose deliveries are counted): four installs and one reinstall.
  const install = (appId: string) => buyer.ok('mutation($id: ID!) { installApp(appId: $id) { id } }', { id: appId });
  for (const app of apps.slice(1, ITEMS)) await install(app.id);
  await buyer.ok('mutation($id: ID!) { uninstallApp(appId: $id) { id } }', { id: apps[1].id });
  await install(apps[1].id);
  for (let i = 0; i < ITEMS; i++) await buyer.ok('mutation($name: String!) { createApiToken(input: { name: $name, scopes: ["apps:read"] }) { id } }', { name: `pager ${i}` });
});

type PageInfo = { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
type Page = { ids: string[]; cursors: string[]; pageInfo: PageInfo };

const lists: [string, () => GraphQLTestClient, string][] = [
  ['storeApps', () => developer, 'storeApps(first: $first, after: $after, last: $last, before: $before)'],
  ['reviewQueue', () => reviewer, 'reviewQueue(first: $first, after: $after, last: $last, before: $before)'],
  ['notifications', () => developer, 'notifications(first: $first, after: $after, last: $last, before: $before)'],
  ['webhookDeliveries', () => developer, 'webhookDeliveries(filter: { appId: $appId }, first: $first, after: $after, last: $last, before: $before)'],
  ['myApiTokens', () => buyer, 'myApiTokens(first: $first, after: $after, last: $last, before: $before)'],
  ['myPurchases', () => buyer, 'myPurchases(first: $first, after: $after, last: $last, before: $before)'],
];

async function page(client: GraphQLTestClient, field: string, variables: Record<string, unknown>): Promise<Page> {
  const name = field.slice(0, field.indexOf('('));
  // A purchase is known by its purchaseId: read under the name the other lists use.
  const node = name === 'myPurchases' ? 'id: purchaseId' : 'id';
  const query = `query($first: Int, $after: String, $last: Int, $before: String${name === 'webhookDeliveries' ? ', $appId: ID' : ''}) {
    ${field} { edges { cursor node { ${node} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  const data = await client.ok<Record<string, any>>(query, { ...variables, ...(name === 'webhookDeliveries' ? { appId: hookApp } : {}) });
  const connection = data[name];
  return { ids: connection.edges.map((e: any) => e.node.id), cursors: connection.edges.map((e: any) => e.cursor), pageInfo: connection.pageInfo };
}

describe.each(lists)('%s pages both ways', (_name, client, field) => {
  it('gives the same items in the same order forward (first/after) and backward (last/before), with the edges of the list marked', async () => {
    const forward: Page[] = [];
    for (let after: string | null = null; ;) {
      const next = await page(client(), field, { first: 2, after });
      forward.push(next);
      if (!next.pageInfo.hasNextPage) break;
      after = next.pageInfo.endCursor;
    }
    const backward: Page[] = [];
    for (let before: string | null = null; ;) {
      const next = await page(client(), field, { last: 2, before });
      backward.unshift(next);
      if (!next.pageInfo.hasPreviousPage) break;
      before = next.pageInfo.startCursor;
    }

    const forwardIds = forward.flatMap((p) => p.ids);
    expect(forwardIds).toHaveLength(ITEMS);
    expect(new Set(forwardIds).size).toBe(ITEMS);
    expect(backward.flatMap((p) => p.ids)).toEqual(forwardIds);
    // 5 items in pages of 2: forward 2+2+1, backward 1+2+2.
    expect(forward.map((p) => p.ids.length)).toEqual([2, 2, 1]);
    expect(backward.map((p) => p.ids.length)).toEqual([1, 2, 2]);

    for (const p of [...forward, ...backward]) {
      expect(p.pageInfo.startCursor).toBe(p.cursors[0]);
      expect(p.pageInfo.endCursor).toBe(p.cursors.at(-1));
    }
    expect(forward.map((p) => [p.pageInfo.hasPreviousPage, p.pageInfo.hasNextPage])).toEqual([
      [false, true],
      [true, true],
      [true, false],
    ]);
    expect(backward.map((p) => [p.pageInfo.hasPreviousPage, p.pageInfo.hasNextPage])).toEqual([
      [false, true],
      [true, true],
      [true, false],
    ]);

    // Back from the second forward page is the first forward page.
    const back = await page(client(), field, { last: 2, before: forward[1]?.pageInfo.startCursor });
    expect(back.ids).toEqual(forward[0]?.ids);
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    // `before` alone pages backward too, a default-sized page.
    expect((await page(client(), field, { before: forward[2]?.pageInfo.startCursor })).ids).toEqual(forwardIds.slice(0, 4));
  });

  it('refuses first and last together, and a before that is not its cursor, naming the argument', async () => {
    const both = await client().error(`query { ${field.replace(/\(.*\)/, '(first: 2, last: 2)')} { edges { cursor } } }`);
    expect(both.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'last' });
    const bogus = await client().error(`query { ${field.replace(/\(.*\)/, '(before: "bm90IGEgY3Vyc29y")')} { edges { cursor } } }`);
    expect(bogus.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'before' });
    const zero = await client().error(`query { ${field.replace(/\(.*\)/, '(last: 0)')} { edges { cursor } } }`);
    expect(zero.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'last' });
  });
});

it('an empty list has no pages on either side and no cursors', async () => {
  const stranger = await plaza.signIn('nobody@studio.test');
  for (const variables of [{ first: 2 }, { last: 2 }]) {
    const { ids, pageInfo } = await page(stranger, 'notifications(first: $first, after: $after, last: $last, before: $before)', variables);
    expect(ids).toEqual([]);
    expect(pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  }
});
