import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyStandardWebhook } from '../../packages/app-sdk/src/server/webhook-signature.js';
import { createTestDatabase } from './helpers/database.js';
import { submitApp } from './helpers/factories.js';
import { GraphQLTestClient } from './helpers/graphql-client.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { openDatabase, purchaseEventProducer, startApiProcess, fakeClock, LIBFAKETIME } from './faults/fault-helpers.js';

// `plaza listen` forwards a delivery signed by the API (webhookForwardRequest), and `plaza trigger` sends a sample
// event the API signs (triggerWebhookEvent): both are stamped (webhook-timestamp) as an attempt is, by the
// database's clock. An API whose own clock is off (Debian's libfaketime, preloaded) must not sign with it: the
// developer's receiver, checking the usual five-minute window as the SDK does, would refuse every forward.

const HOUR_MS = 3_600_000;
/** How far from the database's clock a signed time may be on a busy machine: far less than the hour under test. */
const SLACK_MS = 5 * 60_000;
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';
const FORWARD = 'query($deliveryId: ID!) { webhookForwardRequest(deliveryId: $deliveryId) { deliveryId body headers { name value } } }';
const TRIGGER = 'mutation($appId: ID!) { triggerWebhookEvent(appId: $appId, event: APP_TEST) { deliveryId body createdAt headers { name value } } }';

interface SignedRequest {
  deliveryId: string;
  body: string;
  createdAt?: string;
  headers: { name: string; value: string }[];
}
const headersOf = (request: SignedRequest) => Object.fromEntries(request.headers.map((h) => [h.name, h.value]));

describe("an API process whose clock is an hour behind the database's", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('signs a forwarded delivery and a triggered event by the database clock, so a receiver checking the timestamp takes them', { timeout: 240_000 }, async () => {
    expect(existsSync(LIBFAKETIME), `${LIBFAKETIME} is missing: apt-get install -y faketime (.ci/run does)`).toBe(true);
    const databaseUrl = await createTestDatabase();
    const db = await openDatabase(databaseUrl);
    cleanups.push(() => db.end());
    // A first start migrates a new database: on a loaded machine that alone can take a minute.
    const api = await startApiProcess(databaseUrl, fakeClock('-1h'), { readyWithinMs: 120_000 });
    // The fault is real: the API logs (pino's time is Date.now()) an hour behind.
    const loggedAt = Number(/"time":(\d+)/.exec(api.stdout())?.[1]);
    expect(Math.abs(Date.now() - HOUR_MS - loggedAt)).toBeLessThan(10 * 60_000);

    const receiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok' }));
    cleanups.push(() => receiver.close());
    const developer = await GraphQLTestClient.signIn(api.url, 'clock-forward@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const clientSecret = (await developer.ok<{ revealClientSecret: { value: string } }>(REVEAL, { appId: app.id })).revealClientSecret.value;
    const { purchase, close } = await purchaseEventProducer(databaseUrl, app.id, developer.userId);
    cleanups.push(close);
    const delivery = await purchase();

    const { webhookForwardRequest: forwarded } = await developer.ok<{ webhookForwardRequest: SignedRequest }>(FORWARD, { deliveryId: delivery!.id });
    const { triggerWebhookEvent: triggered } = await developer.ok<{ triggerWebhookEvent: SignedRequest }>(TRIGGER, { appId: app.id });
    const now = (await db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
    for (const request of [forwarded, triggered]) {
      const headers = headersOf(request);
      // webhook-timestamp (seconds) is the database's now, and the SDK's check (five minutes either way, on this test's
      // own clock, which is the database's) accepts the request.
      expect(Math.abs(now.getTime() - Number(headers['webhook-timestamp']) * 1000), `${request.deliveryId}'s webhook-timestamp`).toBeLessThan(SLACK_MS);
      expect(verifyStandardWebhook(request.body, headers, clientSecret), `${request.deliveryId} verifies`).toBe(true);
    }
    // The triggered event's log row, id and body carry the same time.
    expect(Math.abs(now.getTime() - new Date(triggered.createdAt!).getTime())).toBeLessThan(SLACK_MS);
    const [logged] = (await db.query<{ created_at: Date }>('SELECT created_at FROM webhook_cli_events WHERE id = $1', [triggered.deliveryId])).rows;
    expect(Math.abs(now.getTime() - logged!.created_at.getTime())).toBeLessThan(SLACK_MS);
  });
});
