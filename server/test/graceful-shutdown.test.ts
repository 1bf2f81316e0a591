import { beforeAll, describe, expect, it } from 'vitest';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, TEST_ENCRYPTION_KEY, type TestPlaza } from './helpers/plaza.js';
import { startPlazaProcess, type PlazaProcess } from './helpers/process.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { ALL_ATTEMPTS, emitEvent, waitForDelivery } from './helpers/webhooks.js';

let api: TestPlaza;
let developer: GraphQLTestClient;

/** `pnpm worker` as its own process; the claim lease is the default 45 s, so nothing below is explained by a lease running out. */
const startWorker = (env: Record<string, string>): Promise<PlazaProcess> =>
  startPlazaProcess(
    { DATABASE_URL: api.databaseUrl, SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_CLAIM_LEASE: '45s', ...env },
    'worker.js',
    /delivery worker started/,
  );

/** SIGTERM, and how long the process took to exit with which code. */
async function terminate(worker: PlazaProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const code = await worker.stop('SIGTERM');
  return { code, ms: Date.now() - started };
}

async function storedDeliveries(ids: string[]) {
  return api.services.db.query(
    `SELECT d.id, d.status, d.claim_token, d.claim_expires_at, d.next_attempt_at <= now() AS due,
            json_agg(json_build_object('number', a.number, 'finished', a.finished, 'statusCode', a.status_code, 'error', a.error) ORDER BY a.number) AS attempts
       FROM webhook_deliveries d JOIN ${ALL_ATTEMPTS} a ON a.delivery_id = d.id
      WHERE d.id = ANY($1) GROUP BY d.id`,
    [ids],
  );
}

beforeAll(async () => {
  // The API process delivers nothing itself: every attempt below is a worker process's.
  api = await startTestPlaza({ RUN_WORKER: 'false' });
  developer = await api.signIn('shutdown@studio.test');
});

describe('a worker stopped with SIGTERM', () => {
  it('stops claiming, lets the attempts in flight finish and writes their results before it exits', async () => {
    const receiver = await WebhookReceiver.start(() => ({ status: 200, delayMs: 1500 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const worker = await startWorker({ WEBHOOK_TIMEOUT: '10s', SHUTDOWN_GRACE: '8s' });
    const deliveries = await Promise.all([1, 2, 3, 4].map(() => emitEvent(api, app.id)));
    await receiver.waitForRequests(4);

    const { code, ms } = await terminate(worker);
    expect(code, worker.output()).toBe(0);
    // About the receiver's 1.5 s, well inside the grace: nothing waited for the deadline.
    expect(ms).toBeLessThan(6000);
    const stored = await storedDeliveries(deliveries.map((d) => d.id));
    expect(stored).toHaveLength(4);
    for (const d of stored) {
      expect(d).toMatchObject({ status: 'SUCCEEDED', claim_token: null, claim_expires_at: null });
      expect(d.attempts).toEqual([{ number: 1, finished: true, statusCode: 200, error: null }]);
    }
    expect(receiver.requests).toHaveLength(4);
  });

  it('past its grace, hands back the deliveries whose attempts still hang, so another worker sends them at once', async () => {
    const receiver = await WebhookReceiver.start(() => 'hang');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    // The attempt may take 20 s; the worker gives it 1 s.
    const worker = await startWorker({ WEBHOOK_TIMEOUT: '20s', SHUTDOWN_GRACE: '1s' });
    const deliveries = await Promise.all([1, 2, 3].map(() => emitEvent(api, app.id)));
    await receiver.waitForRequests(3);

    const { code, ms } = await terminate(worker);
    expect(code, worker.output()).toBe(0);
    expect(ms).toBeLessThan(5000);
    expect(worker.output()).toMatch(/handed back the deliveries whose attempts were still in flight/);
    const stored = await storedDeliveries(deliveries.map((d) => d.id));
    expect(stored).toHaveLength(3);
    for (const d of stored) {
      // No live claim left behind, due now, and the attempt that was cut off says so.
      expect(d).toMatchObject({ status: 'PENDING', claim_token: null, claim_expires_at: null, due: true });
      expect(d.attempts).toEqual([{ number: 1, finished: true, statusCode: null, error: expect.stringMatching(/^interrupted/) }]);
    }

    // Another worker takes them over at once, not after the 45 s lease.
    receiver.responder = () => ({ status: 200 });
    const handedBackAt = Date.now();
    const next = await startWorker({ WEBHOOK_TIMEOUT: '20s' });
    for (const delivery of deliveries) {
      const done = await waitForDelivery(developer, delivery.id, (d) => d.status === 'SUCCEEDED', 15_000);
      expect(done.attempts.map((a: any) => [a.number, a.finished, a.statusCode])).toEqual([
        [1, true, null],
        [2, true, 200],
      ]);
    }
    expect(Date.now() - handedBackAt).toBeLessThan(15_000);
    expect((await terminate(next)).code).toBe(0);
    // Two workers' starts and stops on top of the bounds above: vitest's 30 s ran out at load 15-18.
  }, 90_000);
});
