import { beforeAll, describe, expect, it } from 'vitest';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent } from './helpers/webhooks.js';

const DELIVERIES = 60;

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  // A retry due at once is kept by the worker that failed it and sent straight away: the race this guards.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1ms,1ms', WEBHOOK_TIMEOUT: '5s' });
  developer = await plaza.signIn('order@hooks.test');
});

describe('live delivery updates', () => {
  it('reach a subscriber in the order things happened: a quick retry’s SUCCEEDED never before the RETRYING it follows', async () => {
    const { subscribe } = await import('./helpers/graphql-client.js');
    // Every delivery's first attempt fails and its retry succeeds.
    const receiver = await WebhookReceiver.start((request) => (request.headers['x-platform-attempt'] === '1' ? { status: 500 } : { status: 200 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const socket = developer.websocket();
    const live = subscribe<{ webhookDeliveryUpdated: { id: string; status: string; attemptCount: number } }>(
      socket,
      'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status attemptCount } }',
      { appId: app.id },
    );
    await plaza.waitForSubscriptions(1);
    const ids = new Set<string>();
    for (let i = 0; i < DELIVERIES; i++) ids.add((await emitEvent(plaza, app.id)).id);

    await live.waitFor(DELIVERIES * 2, 60_000);
    const seen = new Map<string, string[]>();
    for (const { webhookDeliveryUpdated: update } of live.received) seen.set(update.id, [...(seen.get(update.id) ?? []), `${update.status}/${update.attemptCount}`]);
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    // What a live Webhook Logs page ends up showing is the last update it got: it must be the truth.
    for (const [, statuses] of seen) expect(statuses).toEqual(['RETRYING/1', 'SUCCEEDED/2']);
    live.stop();
    await socket.dispose();
  }, 90_000);
});
