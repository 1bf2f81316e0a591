import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

const SEND_TEST = 'mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id purchaseId } }';
const WAIT_MS = 30_000;

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  // Six attempts a few hundred ms apart: a real event's retries are all done within seconds.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms', WEBHOOK_TIMEOUT: '2s' });
  developer = await plaza.signIn('test-events@studio.test');
});

describe('test events (sendTestWebhook)', () => {
  it('are sent once and never retried: a failed one ends FAILED after its one attempt', async () => {
    const receiver = await WebhookReceiver.start(() => ({ status: 500 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const { sendTestWebhook } = await developer.ok<{ sendTestWebhook: { id: string; purchaseId: string } }>(SEND_TEST, { appId: app.id });
    // A real event to the same failing receiver, sent beside it: once it has used its six attempts, a test
    // event that were retried on the same schedule would have had time for all of its own.
    const real = await emitEvent(plaza, app.id);

    const test = await waitForDelivery(developer, sendTestWebhook.id, isFinal, WAIT_MS);
    expect(test).toMatchObject({ status: 'FAILED', attemptCount: 1, nextAttemptAt: null });
    const retried = await waitForDelivery(developer, real.id, isFinal, WAIT_MS);
    expect(retried).toMatchObject({ status: 'FAILED', attemptCount: 6 });

    expect((await waitForDelivery(developer, sendTestWebhook.id, isFinal)).attemptCount).toBe(1);
    const testRequests = receiver.requests.filter((request) => request.rawBody.toString('utf8').includes(sendTestWebhook.purchaseId));
    expect(testRequests).toHaveLength(1);
  });

  it('are at most 10 a minute per app: the 11th is refused with RATE_LIMITED, even when all are asked at once', async () => {
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const results = await Promise.all(Array.from({ length: 15 }, () => developer.request<{ sendTestWebhook: { id: string } }>(SEND_TEST, { appId: app.id })));
    const sent = results.filter((result) => result.data?.sendTestWebhook);
    expect(sent).toHaveLength(10);
    for (const refused of results.filter((result) => !result.data?.sendTestWebhook)) {
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect(refused.errors?.[0]?.message).toMatch(/10 test events a minute/);
    }
    // Each app has its own ten.
    const other = await submitApp(developer, { webhookUrl: receiver.url() });
    expect((await developer.request(SEND_TEST, { appId: other.id })).data?.sendTestWebhook).toBeTruthy();
  });
});
