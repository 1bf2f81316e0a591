import { beforeAll, describe, expect, it } from 'vitest';
import { StorePageCache } from '../src/modules/apps/store-page-cache.js';
import type { Connection } from '../src/platform/connection.js';
import type { App } from '../src/modules/apps/app.entity.js';
import { DECIDE, SUBMIT_APP, validAppInput } from './helpers/factories.js';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';

const STORE = 'query($first: Int, $category: String) { storeApps(first: $first, category: $category) { edges { node { id name } } } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('store.cache@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
});

async function approvedApp(overrides: Record<string, unknown> = {}): Promise<string> {
  const { submitApp } = await developer.ok<{ submitApp: { id: string } }>(SUBMIT_APP, { input: validAppInput(overrides) });
  await reviewer.ok(DECIDE, { input: { appId: submitApp.id, outcome: 'APPROVED' } });
  return submitApp.id;
}

const storeIds = async (variables: Record<string, unknown> = { first: 5 }) =>
  (await plaza.anonymous().ok<{ storeApps: { edges: { node: { id: string } }[] } }>(STORE, variables)).storeApps.edges.map((edge) => edge.node.id);

describe('the store page cache', () => {
  it('lists an app as soon as its approval answers, though the same page was just read (and kept)', async () => {
    const first = await approvedApp();
    // Read twice: the page is now served from memory.
    expect((await storeIds())[0]).toBe(first);
    expect((await storeIds())[0]).toBe(first);
    expect((await storeIds({ first: 5, category: 'games' }))[0]).toBe(first);

    const second = await approvedApp();
    // Right after decideReview answers, within the cache's lifetime: the new app leads every page.
    expect((await storeIds())[0]).toBe(second);
    expect((await storeIds({ first: 5, category: 'games' }))[0]).toBe(second);
  });

  it('shows an approved edit of a listed app at once, not the version kept in memory', async () => {
    const appId = await approvedApp({ name: 'Before the edit' });
    const names = async () => (await plaza.anonymous().ok<{ storeApps: { edges: { node: { id: string; name: string } }[] } }>(STORE, { first: 5 })).storeApps.edges;
    expect((await names()).find((edge) => edge.node.id === appId)?.node.name).toBe('Before the edit');

    await developer.ok('mutation($id: ID!, $input: UpdateAppInput!) { updateApp(id: $id, input: $input) { id status } }', { id: appId, input: { name: 'After the edit' } });
    // Pending review: the store keeps listing the approved version.
    expect((await names()).find((edge) => edge.node.id === appId)?.node.name).toBe('Before the edit');
    await reviewer.ok(DECIDE, { input: { appId, outcome: 'APPROVED' } });
    expect((await names()).find((edge) => edge.node.id === appId)?.node.name).toBe('After the edit');
  });
});

describe('StorePageCache', () => {
  const page = (id: string): Connection<App> => ({
    edges: [{ cursor: id, node: { id } as App }],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: id, endCursor: id },
  });

  it('does not keep a page read while a listing changed (it may predate the change)', async () => {
    const cache = new StorePageCache();
    let finishRead: (value: Connection<App>) => void = () => undefined;
    const reading = cache.through({ first: 20 }, () => new Promise((resolve) => (finishRead = resolve)));
    cache.invalidate();
    finishRead(page('old'));
    expect((await reading).edges[0]?.node.id).toBe('old');
    expect(cache.get({ first: 20 })).toBeUndefined();

    await cache.through({ first: 20 }, async () => page('new'));
    expect(cache.get({ first: 20 })?.edges[0]?.node.id).toBe('new');
  });

  it('reads a page once for the requests that ask while it is being read, and anew for those after a listing changed', async () => {
    const cache = new StorePageCache();
    const reads: ((value: Connection<App>) => void)[] = [];
    const read = () => new Promise<Connection<App>>((resolve) => reads.push(resolve));
    const waiting = Array.from({ length: 20 }, () => cache.through({ first: 20 }, read));
    expect(reads).toHaveLength(1);
    // Another page is its own read.
    const otherCategory = cache.through({ first: 20, category: 'games' }, read);
    expect(reads).toHaveLength(2);
    // After a listing changed, a request does not take the read that began before it.
    cache.invalidate();
    const afterChange = cache.through({ first: 20 }, read);
    expect(reads).toHaveLength(3);
    reads[0]!(page('before'));
    reads[1]!(page('games'));
    reads[2]!(page('after'));
    expect((await Promise.all(waiting)).map((p) => p.edges[0]?.node.id)).toEqual(Array(20).fill('before'));
    expect((await otherCategory).edges[0]?.node.id).toBe('games');
    expect((await afterChange).edges[0]?.node.id).toBe('after');
    expect(cache.get({ first: 20 })?.edges[0]?.node.id).toBe('after');
    // A failed read fails the request that made it and is not kept: the next request reads again.
    await expect(cache.through({ first: 5 }, () => Promise.reject(new Error('database unavailable')))).rejects.toThrow('database unavailable');
    expect(await cache.through({ first: 5 }, async () => page('retried'))).toMatchObject({ edges: [{ node: { id: 'retried' } }] });
  });

  it('keeps no searches, and nothing when turned off', async () => {
    const cache = new StorePageCache();
    await cache.through({ first: 20, search: 'quiz' }, async () => page('found'));
    expect(cache.get({ first: 20, search: 'quiz' })).toBeUndefined();
    cache.enabled = false;
    await cache.through({ first: 20 }, async () => page('any'));
    expect(cache.get({ first: 20 })).toBeUndefined();
  });
});
