import { beforeAll, describe, expect, it } from 'vitest';
import { cliFor, type RunCli } from './helpers/cli.js';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, waitForDelivery } from './helpers/webhooks.js';

// Issue 24 item 13: `plaza recover` reports, for each delivery, the outcome of the attempt it caused, not an
// older one: here every delivery already has failed MANUAL attempts (plaza redeliver while the receiver was
// down) when the recovery's own attempts succeed, or fail. Exit codes as the contract says: 0 when all
// succeeded, 3 when some of those it sent did not. The real CLI, a real Plaza, a real receiver.

const DELIVERIES = 3;
/** Requests one worker keeps in flight to one app (the engine's maxInFlightPerApp). */
const PER_APP_SLOTS = 32;

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let plazaCli: RunCli;

beforeAll(async () => {
  // One quick retry, so a delivery to a failing receiver is FAILED within a second.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '5s' });
  developer = await plaza.signIn('recover-cli@studio.test');
  plazaCli = await cliFor(plaza.url, developer);
});

/** An app whose deliveries failed every scheduled attempt and then one `plaza redeliver` each, while `receiver` answered 503. */
async function failedTwice(receiver: WebhookReceiver) {
  const app = await submitApp(developer, { webhookUrl: receiver.url() });
  const failed = [];
  for (let i = 0; i < DELIVERIES; i++) failed.push(await emitEvent(plaza, app.id));
  for (const d of failed) await waitForDelivery(developer, d.id, (x) => x.status === 'FAILED', 20_000);
  for (const d of failed) {
    const run = await plazaCli(['redeliver', d.id]);
    expect(run.stdout).toMatch(/attempt 3\): FAILED, 503/);
    expect(run.code).toBe(3);
    const after = await waitForDelivery(developer, d.id, (x) => x.attempts.at(-1)?.trigger === 'MANUAL' && x.attempts.at(-1).finished);
    expect(after).toMatchObject({ status: 'FAILED', attemptCount: 3 });
  }
  return { app, failed };
}

describe('plaza recover', () => {
  it('reports the recovery’s own attempts: all succeeded after earlier failed manual attempts, exit 0, however long they wait for a slot', async () => {
    const receiver = await WebhookReceiver.start(() => ({ status: 503 }));
    const { app, failed } = await failedTwice(receiver);
    // Up again, and busy: the app's new deliveries hold every one of its slots in the worker (32) until they
    // time out, so the recovery's attempts wait queued, their deliveries showing only the older attempts.
    const recovered = new Set(failed.map((d) => d.id));
    receiver.responder = (request) => (recovered.has(request.headers['x-platform-delivery'] as string) ? { status: 200 } : 'hang');
    for (let i = 0; i < PER_APP_SLOTS; i++) await emitEvent(plaza, app.id);
    await expect.poll(() => receiver.hangingNow, { timeout: 20_000 }).toBe(PER_APP_SLOTS);

    const run = await plazaCli(['recover', '--app', app.id, '--since', '10m']);
    expect(run.stderr).toContain(`Recovered ${app.id}: ${DELIVERIES}/${DELIVERIES} sent: ${DELIVERIES} succeeded, 0 failed`);
    expect(run.code).toBe(0);
    for (const d of failed) expect(await waitForDelivery(developer, d.id, (x) => x.status === 'SUCCEEDED')).toMatchObject({ attemptCount: 4 });
  }, 90_000);

  it('says which of the recovery’s attempts failed and exits 3 when any did', async () => {
    let answer = 503;
    const receiver = await WebhookReceiver.start(() => ({ status: answer }));
    const { app, failed } = await failedTwice(receiver);
    // The recovery's attempt of the first delivery succeeds, the others' fail again.
    answer = 0;
    receiver.responder = (request) => ({ status: request.headers['x-platform-delivery'] === failed[0]!.id ? 200 : 500 });

    const run = await plazaCli(['recover', '--app', app.id, '--since', '10m', '--json']);
    expect(run.stderr).toContain(`${DELIVERIES}/${DELIVERIES} sent: 1 succeeded, ${DELIVERIES - 1} failed`);
    expect(run.code).toBe(3);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ appId: app.id, deliveriesQueued: DELIVERIES });
    const outcomes = Object.fromEntries(lines.slice(1).map((d) => [d.id, d.recoveryAttempt]));
    expect(outcomes).toEqual(
      Object.fromEntries(
        failed.map((d, i) => [d.id, expect.objectContaining({ number: 4, trigger: 'MANUAL', outcome: i === 0 ? 'SUCCEEDED' : 'FAILED', statusCode: i === 0 ? 200 : 500 })]),
      ),
    );
  }, 90_000);
});
