import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { DELIVERY, emitEvent } from './helpers/webhooks.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';

/** The Webhook Logs page reads deliveries without their bodies; a client that asks for `payload` still gets each one exactly. */
let plaza: TestPlaza;
let owner: GraphQLTestClient;
const deliveryIds: string[] = [];

beforeAll(async () => {
  // Nothing is sent (the receiver's address is never reached in an hour): the log is read as recorded.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h', RUN_WORKER: 'false' });
  owner = await plaza.signIn('log.page@studio.test');
  const app = await submitApp(owner, { webhookUrl: 'https://hooks.example.com/plaza' });
  for (const type of [WebhookEventType.APP_PURCHASED, WebhookEventType.APP_INSTALLED, WebhookEventType.APP_UNINSTALLED])
    deliveryIds.push((await emitEvent(plaza, app.id, { type })).id);
});

describe('webhookDeliveries, the log page', () => {
  it("gives each delivery's own signed body when the page asks for payload, and the page without it is the same page", async () => {
    const page = await owner.ok<{ webhookDeliveries: { edges: { node: { id: string; eventName: string; payload?: string } }[] } }>(
      'query { webhookDeliveries(first: 10) { edges { node { id eventName payload } } } }',
    );
    const listed = page.webhookDeliveries.edges.map((edge) => edge.node);
    expect(listed.map((d) => d.id)).toEqual([...deliveryIds].reverse());
    for (const delivery of listed) {
      const { webhookDelivery } = await owner.ok<{ webhookDelivery: { payload: string } }>(DELIVERY, { id: delivery.id });
      expect(delivery.payload).toBe(webhookDelivery.payload);
      expect(JSON.parse(delivery.payload!)).toMatchObject({ event: delivery.eventName });
    }

    const withoutBodies = await owner.ok<{ webhookDeliveries: { edges: { node: { id: string } }[] } }>('query { webhookDeliveries(first: 10) { edges { node { id } } } }');
    expect(withoutBodies.webhookDeliveries.edges.map((edge) => edge.node.id)).toEqual(listed.map((d) => d.id));
  });
});
