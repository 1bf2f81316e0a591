import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase } from './helpers/database.js';
import { submitApp } from './helpers/factories.js';
import { GraphQLTestClient } from './helpers/graphql-client.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { waitForDelivery } from './helpers/webhooks.js';
import { openDatabase, purchaseEventProducer, startApiProcess, startWorkerProcess, fakeClock, LIBFAKETIME } from './faults/fault-helpers.js';

// A manual redelivery is sent by the API process, every other attempt by a worker on the database's clock
// (clock_timestamp()). An API whose clock is off (Debian's libfaketime, preloaded) must not stamp the attempt
// with its own time: a receiver refuses a webhook-timestamp five minutes off, and the log would list the
// attempt an hour before the delivery was made.

const HOUR_MS = 3_600_000;
/** How far from the database's clock an attempt's time may be on a busy machine: far less than the hour under test. */
const SLACK_MS = 5 * 60_000;
const REDELIVER = 'mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id attemptCount attempts { number trigger startedAt } } }';

describe("an API process whose clock is an hour behind the database's", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('stamps, signs and records a manual redelivery by the database clock, after the attempts before it', { timeout: 240_000 }, async () => {
    expect(existsSync(LIBFAKETIME), `${LIBFAKETIME} is missing: apt-get install -y faketime (.ci/run does)`).toBe(true);
    const databaseUrl = await createTestDatabase();
    const db = await openDatabase(databaseUrl);
    cleanups.push(() => db.end());
    // A first start migrates a new database: on a loaded machine that alone can take a minute.
    const api = await startApiProcess(databaseUrl, fakeClock('-1h'), { readyWithinMs: 120_000 });
    await startWorkerProcess(databaseUrl, {}, { readyWithinMs: 120_000 });
    // The fault is real: the API logs (pino's time is Date.now()) an hour behind.
    const loggedAt = Number(/"time":(\d+)/.exec(api.stdout())?.[1]);
    expect(Math.abs(Date.now() - HOUR_MS - loggedAt)).toBeLessThan(10 * 60_000);

    const receiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok' }));
    const developer = await GraphQLTestClient.signIn(api.url, 'clock-redeliver@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const { purchase, close } = await purchaseEventProducer(databaseUrl, app.id, developer.userId);
    cleanups.push(close);
    await purchase();
    await vi.waitFor(() => expect(receiver.requests).toHaveLength(1), { timeout: 30_000, interval: 50 });
    const deliveryId = String(receiver.requests[0]!.headers['x-platform-delivery']);
    await waitForDelivery(developer, deliveryId, (d) => d.status === 'SUCCEEDED', 30_000);

    const { redeliverWebhook } = await developer.ok<any>(REDELIVER, { id: deliveryId });
    const now = (await db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
    expect(receiver.requests).toHaveLength(2);
    // The redelivery's webhook-timestamp (seconds) is the database's now, as the worker's first attempt's was.
    const signedAt = receiver.requests.map((request) => Number(request.headers['webhook-timestamp']) * 1000);
    for (const at of signedAt) expect(Math.abs(now.getTime() - at)).toBeLessThan(SLACK_MS);
    // The log lists the manual attempt after the scheduled one, at the database's time.
    expect(redeliverWebhook.attempts.map((attempt: { number: number; trigger: string }) => [attempt.number, attempt.trigger])).toEqual([
      [1, 'SCHEDULED'],
      [2, 'MANUAL'],
    ]);
    const [first, manual] = redeliverWebhook.attempts.map((attempt: { startedAt: string }) => new Date(attempt.startedAt).getTime());
    expect(manual).toBeGreaterThanOrEqual(first);
    expect(Math.abs(now.getTime() - manual)).toBeLessThan(SLACK_MS);
  });
});
