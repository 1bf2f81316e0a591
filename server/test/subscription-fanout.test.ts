import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { subscribe, type GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent } from './helpers/webhooks.js';
import { Topic } from '../src/platform/pubsub.js';

/** What a developer's delivery log page asks for, body and attempts included (read from the database per update). */
const FULL = `subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) {
  id appId event eventName purchaseId payload status attemptCount updatedAt attempts { number statusCode } } }`;
/** Another question about the same updates: it gets an answer of its own. */
const NARROW = 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status } }';
const SUBSCRIBERS = 12;
const WAIT_MS = 20_000;

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let rival: GraphQLTestClient;
const sockets: Client[] = [];

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms', WEBHOOK_TIMEOUT: '2s' });
  developer = await plaza.signIn('fanout@studio.test');
  rival = await plaza.signIn('fanout-rival@studio.test');
});

afterEach(async () => {
  // dispose() is typed void | Promise<void>: the async arrow makes each a promise to wait for.
  await Promise.all(sockets.splice(0).map(async (socket) => socket.dispose()));
  // The next test counts the subscriptions it opens.
  await expect
    .poll(() => plaza.services.pubSub.subscriptionCount, { timeout: WAIT_MS, interval: 20, message: 'closed sockets’ subscriptions are still held by the server' })
    .toBe(0);
});

const socketOf = (client: GraphQLTestClient): Client => {
  const socket = client.websocket();
  sockets.push(socket);
  return socket;
};

/**
 * Counts how often this process turns an update of webhookDeliveryUpdated into JSON, as a result or as
 * a graphql-ws `next` message (the server runs in the test's process). The clients only parse.
 */
function countSerialisedUpdates(): { count: () => number; restore: () => void } {
  const original = JSON.stringify;
  let count = 0;
  const counting = (value: unknown, ...rest: unknown[]): string => {
    const message = value as { type?: string; payload?: unknown } | null;
    const result = (message?.type === 'next' ? message.payload : value) as { data?: { webhookDeliveryUpdated?: unknown } } | null;
    if (result?.data?.webhookDeliveryUpdated) count += 1;
    return (original as (...args: unknown[]) => string).call(JSON, value, ...rest);
  };
  JSON.stringify = counting as typeof JSON.stringify;
  return { count: () => count, restore: () => void (JSON.stringify = original) };
}

describe('webhookDeliveryUpdated with many subscribers', () => {
  it('stops sending to a subscription its client completed, and lets go of it on the server at once', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const socket = socketOf(developer);
    const staying = subscribe<{ webhookDeliveryUpdated: any }>(socket, NARROW, { appId: app.id });
    // All of the developer's apps: filtered per subscriber, which must not keep listening once completed.
    const leaving = subscribe<{ webhookDeliveryUpdated: any }>(socket, NARROW, {});
    await plaza.waitForSubscriptions(2);

    const before = await emitEvent(plaza, app.id);
    await Promise.all([staying.waitFor(1, WAIT_MS), leaving.waitFor(1, WAIT_MS)]);
    leaving.stop();
    await expect.poll(() => plaza.services.pubSub.subscriptionCount, { timeout: WAIT_MS, interval: 20, message: 'the completed subscription is still held by the server' }).toBe(1);

    const after = await emitEvent(plaza, app.id);
    await staying.waitFor(2, WAIT_MS);
    expect(staying.received.map((u) => u.webhookDeliveryUpdated.id)).toEqual([before.id, after.id]);
    expect(leaving.received.map((u) => u.webhookDeliveryUpdated.id)).toEqual([before.id]);

    await socket.dispose();
    await expect
      .poll(() => plaza.services.pubSub.subscriptionCount, { timeout: WAIT_MS, interval: 20, message: 'a closed socket’s subscription is still held by the server' })
      .toBe(0);
  });

  it('gives every subscriber of the same query the same correct updates, serialised once per question, and another developer none', async () => {
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const rivalReceiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const rivalApp = await submitApp(rival, { webhookUrl: rivalReceiver.url() });

    const mine = Array.from({ length: SUBSCRIBERS }, () => socketOf(developer));
    const full = mine.map((socket) => subscribe<{ webhookDeliveryUpdated: any }>(socket, FULL, { appId: app.id }));
    // Two more subscriptions on sockets that already have one: a socket gets several frames per update.
    full.push(subscribe(mine[0]!, FULL, { appId: app.id }));
    const narrow = subscribe<{ webhookDeliveryUpdated: any }>(mine[1]!, NARROW, { appId: app.id });
    // The rival follows all of their own apps, and their one app by id, with the same query as the developer.
    const rivalSocket = socketOf(rival);
    const rivalAll = subscribe<{ webhookDeliveryUpdated: any }>(rivalSocket, FULL, {});
    const rivalOwn = subscribe<{ webhookDeliveryUpdated: any }>(rivalSocket, FULL, { appId: rivalApp.id });
    await plaza.waitForSubscriptions(SUBSCRIBERS + 4);

    const serialised = countSerialisedUpdates();
    let delivery!: Awaited<ReturnType<typeof emitEvent>>;
    try {
      delivery = await emitEvent(plaza, app.id);
      await Promise.all([...full, narrow].map((live) => live.waitFor(2, WAIT_MS)));
    } finally {
      serialised.restore();
    }

    const [first] = full;
    const updates = first!.received.map((u) => u.webhookDeliveryUpdated);
    expect(updates.map((u) => [u.id, u.appId, u.event, u.purchaseId, u.status, u.attemptCount])).toEqual([
      [delivery.id, app.id, 'APP_PURCHASED', delivery.purchaseId, 'RETRYING', 1],
      [delivery.id, app.id, 'APP_PURCHASED', delivery.purchaseId, 'SUCCEEDED', 2],
    ]);
    for (const update of updates) expect(update.payload).toBe(receiver.requests[0]?.rawBody.toString('utf8'));
    expect(updates[1].attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200]);
    for (const live of full) expect(live.received).toEqual(first!.received);
    expect(narrow.received).toEqual(updates.map(({ id, status }) => ({ webhookDeliveryUpdated: { id, status } })));
    // One JSON text per update and distinct question (FULL, NARROW), however many subscribers ask it.
    expect(serialised.count()).toBe(2 * 2);

    // The rival's subscriptions were live all along: their own app's update is the first thing they get.
    const rivalDelivery = await emitEvent(plaza, rivalApp.id);
    const [rivalFirst] = await rivalAll.waitFor(1, WAIT_MS);
    const [ownFirst] = await rivalOwn.waitFor(1, WAIT_MS);
    expect([rivalFirst.webhookDeliveryUpdated.id, ownFirst.webhookDeliveryUpdated.id]).toEqual([rivalDelivery.id, rivalDelivery.id]);
    expect([...rivalAll.received, ...rivalOwn.received].map((u) => u.webhookDeliveryUpdated.appId)).not.toContain(app.id);
    // Nor did the rival's update reach the developer's subscribers: an update of the developer's app
    // committed after it is what comes next to each of them (one subscription's updates arrive in order).
    const later = await emitEvent(plaza, app.id);
    await Promise.all(full.map((live) => live.waitFor(3, WAIT_MS)));
    for (const live of full) expect(live.received.slice(2).map((u) => [u.webhookDeliveryUpdated.id, u.webhookDeliveryUpdated.appId])).toEqual([[later.id, app.id]]);
  });

  it('sends an update that fails to resolve as an error shaped as over HTTP to each subscriber, and keeps their subscriptions', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const results: { data?: any; errors?: readonly any[] }[][] = [[], []];
    for (const received of results)
      socketOf(developer).subscribe(
        { query: 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id event } }', variables: { appId: app.id } },
        { next: (result) => void received.push(result), error: () => undefined, complete: () => undefined },
      );
    await plaza.waitForSubscriptions(2);

    // An update naming an event type the API does not know: resolving its `event` fails on the server.
    const now = new Date().toISOString();
    const bogus = { id: 'dlv_bogus', appId: app.id, ownerId: developer.userId, eventType: 'app.bogus', purchaseId: 'APP-1-BOGUS1' };
    await plaza.services.pubSub.publishIn(plaza.services.db.manager, Topic.WEBHOOK_DELIVERY_UPDATED, app.id, {
      ...bogus,
      status: 'SUCCEEDED',
      attemptCount: 1,
      nextAttemptAt: null,
      createdAt: now,
      updatedAt: now,
    });
    const delivery = await emitEvent(plaza, app.id);
    await expect.poll(() => results.map((received) => received.length >= 2), { timeout: WAIT_MS, interval: 20, message: 'updates missing' }).toEqual([true, true]);

    for (const received of results) {
      expect(received[0]).toEqual({
        data: null,
        errors: [{ message: 'Something went wrong on our side; it has been logged.', path: ['webhookDeliveryUpdated', 'event'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      });
      expect(received[1]).toEqual({ data: { webhookDeliveryUpdated: { id: delivery.id, event: 'APP_PURCHASED' } } });
    }
  });
});
