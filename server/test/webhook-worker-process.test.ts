import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, TEST_ENCRYPTION_KEY, type TestPlaza } from './helpers/plaza.js';
import { subscribe, type GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { startPlazaProcess, type PlazaProcess } from './helpers/process.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

const WORKER_READY = /delivery worker started/;
let api: TestPlaza;
let developer: GraphQLTestClient;

/** `pnpm worker` as its own process, on the API's database. */
const startWorker = (): Promise<PlazaProcess> =>
  startPlazaProcess(
    {
      DATABASE_URL: api.databaseUrl,
      SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
      WEBHOOK_TIMEOUT: '2s',
      WEBHOOK_CLAIM_LEASE: '3s',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    },
    'worker.js',
    WORKER_READY,
  );

beforeAll(async () => {
  // The API process delivers nothing itself: every attempt below is the worker process's.
  api = await startTestPlaza({ RUN_WORKER: 'false' });
  developer = await api.signIn('split@studio.test');
});

describe('a worker in its own process', () => {
  it('delivers, and its updates reach a graphql-ws client connected to the API process', async () => {
    const worker = await startWorker();
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const socket = developer.websocket();
    const live = subscribe<{ webhookDeliveryUpdated: any }>(socket, 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status attemptCount } }', {
      appId: app.id,
    });
    await api.waitForSubscriptions(1);

    const delivery = await emitEvent(api, app.id);
    const updates = await live.waitFor(2, 10_000);
    expect(updates.map((u) => [u.webhookDeliveryUpdated.id, u.webhookDeliveryUpdated.status])).toEqual([
      [delivery.id, 'RETRYING'],
      [delivery.id, 'SUCCEEDED'],
    ]);
    expect(api.services.webhookEngine.attemptsInFlight).toBe(0);
    live.stop();
    await socket.dispose();
    expect(await worker.stop('SIGTERM'), worker.output()).toBe(0);
  });

  it('killed with SIGKILL in the middle of an attempt: the delivery still reaches a final state, every attempt recorded', async () => {
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const receiver = await WebhookReceiver.start((_, i) => {
      if (i === 0) {
        firstArrived();
        return 'hang';
      }
      return { status: 200, body: 'got it' };
    });
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const first = await startWorker();
    const delivery = await emitEvent(api, app.id);
    await arrived;
    await first.stop('SIGKILL');

    const killedAt = Date.now();
    const second = await startWorker();
    const done = await waitForDelivery(developer, delivery.id, isFinal, 20_000);
    // Taken over once the dead worker's claim expired (3 s here; 45 s by default, always within 60 s).
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => [a.number, a.finished, a.statusCode])).toEqual([
      [1, true, null],
      [2, true, 200],
    ]);
    expect(done.attempts[0].error).toMatch(/^interrupted/);
    // At least once: the receiver saw the interrupted attempt and the one that succeeded, with the same delivery id.
    expect(receiver.requests.map((r) => r.headers['x-platform-delivery'])).toEqual([delivery.id, delivery.id]);
    expect(await second.stop('SIGTERM'), second.output()).toBe(0);
  });
});
