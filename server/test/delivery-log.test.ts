import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ATTEMPTS_OF_DELIVERIES } from '../src/modules/webhooks/delivery/log-queries.js';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { DELIVERY, emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';

const LIST = `query($filter: WebhookDeliveryFilter, $first: Int, $after: String) {
  webhookDeliveries(filter: $filter, first: $first, after: $after) { edges { cursor node { id appId event status purchaseId createdAt } } pageInfo { hasNextPage endCursor } } }`;
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }';

let plaza: TestPlaza;
let owner: GraphQLTestClient;
let appA: any;
let appB: any;
const ids = {} as Record<'purchased' | 'installed' | 'refunded' | 'retrying', string>;

const list = async (client: GraphQLTestClient, variables: Record<string, unknown> = {}) => (await client.ok<{ webhookDeliveries: any }>(LIST, variables)).webhookDeliveries;
const listIds = async (client: GraphQLTestClient, filter: Record<string, unknown>) => (await list(client, { filter, first: 100 })).edges.map((e: any) => e.node.id);

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h' });
  owner = await plaza.signIn('logs@studio.test');
  const ok = await WebhookReceiver.start(() => ({ status: 200 }));
  const failing = await WebhookReceiver.start(() => ({ status: 500 }));
  appA = await submitApp(owner, { webhookUrl: ok.url() });
  appB = await submitApp(owner, { webhookUrl: failing.url() });
  ids.purchased = (await emitEvent(plaza, appA.id, { type: WebhookEventType.APP_PURCHASED, purchaseId: 'APP-1795000000000-AAAAAA' })).id;
  ids.installed = (await emitEvent(plaza, appA.id, { type: WebhookEventType.APP_INSTALLED })).id;
  ids.refunded = (await emitEvent(plaza, appA.id, { type: WebhookEventType.APP_REFUNDED, purchaseId: 'APP-1795000000000-AAAAAA' })).id;
  ids.retrying = (await emitEvent(plaza, appB.id)).id;
  for (const id of Object.values(ids)) await waitForDelivery(owner, id, (d) => isFinal(d) || d.status === 'RETRYING');
});

describe('webhookDeliveries', () => {
  it('gives each delivery of a page its own attempts, oldest first, read in one query for the whole page', async () => {
    await owner.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: ids.retrying });
    const attemptsOf = async (id: string) => (await owner.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery.attempts.map((a: any) => [a.number, a.trigger]);
    const expected = Object.fromEntries(await Promise.all(Object.values(ids).map(async (id) => [id, await attemptsOf(id)])));
    expect(expected[ids.retrying]).toEqual([
      [1, 'SCHEDULED'],
      [2, 'MANUAL'],
    ]);

    const find = vi.spyOn(plaza.services.db, 'query');
    const attemptQueries = () => find.mock.calls.filter(([sql]) => sql === ATTEMPTS_OF_DELIVERIES).length;
    try {
      const { webhookDeliveries } = await owner.ok<{ webhookDeliveries: any }>('{ webhookDeliveries(first: 100) { edges { node { id attempts { number trigger } } } } }');
      const listed = Object.fromEntries(webhookDeliveries.edges.map((e: any) => [e.node.id, e.node.attempts.map((a: any) => [a.number, a.trigger])]));
      for (const id of Object.values(ids)) expect(listed[id], id).toEqual(expected[id]);
      expect(attemptQueries()).toBe(1);
    } finally {
      find.mockRestore();
    }
  });

  it('lists the developer’s deliveries newest first', async () => {
    const { edges } = await list(owner);
    expect(edges.map((e: any) => e.node.id)).toEqual([ids.retrying, ids.refunded, ids.installed, ids.purchased]);
  });

  it('filters by app, status, event, purchase id and time', async () => {
    expect(await listIds(owner, { appId: appB.id })).toEqual([ids.retrying]);
    expect(await listIds(owner, { status: 'RETRYING' })).toEqual([ids.retrying]);
    expect(await listIds(owner, { appId: appA.id, status: 'SUCCEEDED' })).toEqual([ids.refunded, ids.installed, ids.purchased]);
    expect(await listIds(owner, { event: 'APP_INSTALLED' })).toEqual([ids.installed]);
    expect(await listIds(owner, { purchaseId: 'APP-1795000000000-AAAAAA' })).toEqual([ids.refunded, ids.purchased]);
    const { webhookDelivery: installed } = await owner.ok<{ webhookDelivery: any }>(DELIVERY, { id: ids.installed });
    expect(await listIds(owner, { since: installed.createdAt, until: installed.createdAt })).toEqual([ids.installed]);
    expect(await listIds(owner, { since: installed.createdAt })).toEqual([ids.retrying, ids.refunded, ids.installed]);
    expect(await listIds(owner, { until: new Date(Date.parse(installed.createdAt) - 1).toISOString() })).not.toContain(ids.installed);
  });

  it('pages with cursors that stay stable while new deliveries arrive', async () => {
    const first = await list(owner, { first: 2 });
    expect(first.pageInfo.hasNextPage).toBe(true);
    // New deliveries land at the head of the list; the next page is unaffected.
    await emitEvent(plaza, appA.id);
    await emitEvent(plaza, appA.id);
    const second = await list(owner, { first: 2, after: first.pageInfo.endCursor });
    expect(second.edges.map((e: any) => e.node.id)).toEqual([ids.installed, ids.purchased]);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses bad paging and time ranges, naming the argument', async () => {
    expect((await owner.error(LIST, { first: 101 })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'first' });
    expect((await owner.error(LIST, { first: 0 })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'first' });
    expect((await owner.error(LIST, { after: 'not-a-cursor' })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'after' });
    expect((await owner.error(LIST, { filter: { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' } })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'until' });
    expect((await owner.error(LIST, { filter: { status: 'LOST' } })).extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('who reads the Webhook Logs', () => {
  it('shows another developer nothing of these apps', async () => {
    const rival = await plaza.signIn('rival@logs.test');
    expect((await list(rival)).edges).toEqual([]);
    expect(await listIds(rival, { appId: appA.id })).toEqual([]);
    expect((await rival.ok<{ webhookDelivery: any }>(DELIVERY, { id: ids.purchased })).webhookDelivery).toBeNull();
    expect((await rival.error('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: ids.purchased })).extensions?.code).toBe('NOT_FOUND');
  });

  it('shows admins every app, and lets them redeliver', async () => {
    const admin = await plaza.signIn(ADMIN_EMAIL);
    expect(await listIds(admin, { appId: appA.id })).toContain(ids.purchased);
    const { redeliverWebhook } = await admin.ok<{ redeliverWebhook: any }>('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { attempts { trigger } } }', {
      id: ids.purchased,
    });
    expect(redeliverWebhook.attempts.map((a: any) => a.trigger)).toEqual(['SCHEDULED', 'MANUAL']);
  });

  it('gives API tokens with deliveries:read their owner’s deliveries, and nothing more', async () => {
    const read = owner.withToken((await owner.ok<{ createApiToken: any }>(CREATE_TOKEN, { input: { name: 'dashboard', scopes: ['deliveries:read'] } })).createApiToken.token);
    const appsOnly = owner.withToken((await owner.ok<{ createApiToken: any }>(CREATE_TOKEN, { input: { name: 'apps', scopes: ['apps:read'] } })).createApiToken.token);
    expect(await listIds(read, { appId: appA.id })).toContain(ids.purchased);
    expect(
      (await read.ok<{ webhookDelivery: any }>(`query($id: ID!) { webhookDelivery(id: $id) { id attempts { number } } }`, { id: ids.installed })).webhookDelivery.attempts,
    ).toHaveLength(1);
    expect((await appsOnly.error(LIST)).extensions?.code).toBe('FORBIDDEN');
    // Reading is not redelivering.
    expect((await read.error('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: ids.installed })).extensions?.code).toBe('FORBIDDEN');
    const write = owner.withToken((await owner.ok<{ createApiToken: any }>(CREATE_TOKEN, { input: { name: 'ops', scopes: ['deliveries:write'] } })).createApiToken.token);
    await write.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: ids.installed });

    // An admin's token still reads only its owner's apps.
    const admin = await plaza.signIn(ADMIN_EMAIL);
    const adminToken = admin.withToken((await admin.ok<{ createApiToken: any }>(CREATE_TOKEN, { input: { name: 'admin ci', scopes: ['deliveries:read'] } })).createApiToken.token);
    expect(await listIds(adminToken, { appId: appA.id })).toEqual([]);
  });

  it('needs a credential', async () => {
    expect((await plaza.anonymous().error(LIST)).extensions?.code).toBe('UNAUTHENTICATED');
  });
});
