import { beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

const FORWARD = `query($deliveryId: ID!) { webhookForwardRequest(deliveryId: $deliveryId) { deliveryId body headers { name value } } }`;
const DELIVERY = 'query($id: ID!) { webhookDelivery(id: $id) { id } }';
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }';

let plaza: TestPlaza;
let owner: GraphQLTestClient;
let admin: GraphQLTestClient;
let stranger: GraphQLTestClient;
let deliveryId: string;
let clientSecret: string;

beforeAll(async () => {
  plaza = await startTestPlaza();
  [owner, admin, stranger] = await Promise.all([plaza.signIn('forwarder@studio.test'), plaza.signIn(ADMIN_EMAIL), plaza.signIn('stranger@studio.test')]);
  const receiver = await WebhookReceiver.start();
  const app = await submitApp(owner, { webhookUrl: receiver.url() });
  clientSecret = (await owner.ok<{ revealClientSecret: { value: string } }>(REVEAL, { appId: app.id })).revealClientSecret.value;
  deliveryId = (await emitEvent(plaza, app.id)).id;
  await waitForDelivery(owner, deliveryId, isFinal);
});

/**
 * webhookForwardRequest signs the app's real delivery now, with a fresh webhook-timestamp: whoever gets it
 * holds a request the app's receiver accepts for its whole replay window. Only the owner's `plaza listen` needs it.
 */
describe('webhookForwardRequest', () => {
  it('gives the owner (session, or a token with deliveries:write) the delivery signed now, which the app’s secret verifies', async () => {
    const { token } = (await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'listen', scopes: ['deliveries:write'] } })).createApiToken;
    for (const client of [owner, owner.withToken(token)]) {
      const { webhookForwardRequest: request } = await client.ok<{ webhookForwardRequest: any }>(FORWARD, { deliveryId });
      expect(request.deliveryId).toBe(deliveryId);
      const headers = Object.fromEntries(request.headers.map((h: { name: string; value: string }) => [h.name, h.value]));
      expect(() => new StandardWebhook(clientSecret.slice('whsec_'.length)).verify(request.body, headers)).not.toThrow();
    }
  });

  it('answers an admin who does not own the app NOT_FOUND, as for a delivery that does not exist, though the admin may read the delivery', async () => {
    // Reading the log stays open to admins; a freshly signed request does not.
    expect((await admin.ok<{ webhookDelivery: { id: string } | null }>(DELIVERY, { id: deliveryId })).webhookDelivery).toEqual({ id: deliveryId });
    const refused = await admin.error(FORWARD, { deliveryId });
    const missing = await admin.error(FORWARD, { deliveryId: 'dlv_01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(refused.extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect(refused.message).toBe(missing.message.replace('dlv_01ZZZZZZZZZZZZZZZZZZZZZZZZ', deliveryId));
  });

  it('answers another developer NOT_FOUND', async () => {
    expect((await stranger.error(FORWARD, { deliveryId })).extensions).toMatchObject({ code: 'NOT_FOUND' });
  });
});
