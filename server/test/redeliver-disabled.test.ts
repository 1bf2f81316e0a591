import { beforeAll, describe, expect, it } from 'vitest';
import { cliFor, type RunCli } from './helpers/cli.js';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, waitForDelivery } from './helpers/webhooks.js';

// Issue 24 item 12: while an app's webhook is disabled, sending one of its deliveries again is refused as
// recovering them is (CONFLICT, same reason and message), through the API and the real CLI, and nothing is
// recorded: no attempt, no attempt number used, no request.

const REDELIVER = 'mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id status attemptCount } }';
const RECOVER = 'mutation($appId: ID!, $since: DateTime!) { recoverWebhookDeliveries(appId: $appId, since: $since) { deliveriesQueued } }';
const APP_STATE = 'query($id: ID!) { app(id: $id) { webhookState } }';
const DELIVERY = 'query($id: ID!) { webhookDelivery(id: $id) { status attemptCount heldReason updatedAt attempts { number trigger finished error } } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let plazaCli: RunCli;

beforeAll(async () => {
  // One quick retry: a delivery gives up within a second; a second run of failures 1 s later disables the webhook.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '2s', WEBHOOK_DISABLE_AFTER: '1s' });
  developer = await plaza.signIn('held@studio.test');
  plazaCli = await cliFor(plaza.url, developer);
});

const deliveryOf = async (id: string) => (await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery;

describe('redelivering while the webhook is disabled', () => {
  it('is refused as recovery is (CONFLICT, same reason and message), records nothing and sends nothing; the CLI exits 1 saying why', async () => {
    const receiver = await WebhookReceiver.start(() => ({ status: 500, body: 'down' }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const since = new Date(Date.now() - 60_000).toISOString();
    const failed = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, failed.id, (d) => d.status === 'FAILED');
    // Failing for longer than WEBHOOK_DISABLE_AFTER: each further failure's write asks for the sweep that disables it.
    await expect
      .poll(
        async () => {
          const state = (await developer.ok<{ app: { webhookState: string } }>(APP_STATE, { id: app.id })).app.webhookState;
          if (state === 'ENABLED') await waitForDelivery(developer, (await emitEvent(plaza, app.id)).id, (d) => d.status === 'FAILED');
          return state;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe('DISABLED');
    const held = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, held.id, (d) => d.heldReason !== null);

    const recoverRefused = await developer.error(RECOVER, { appId: app.id, since });
    expect(recoverRefused.extensions?.code).toBe('CONFLICT');
    const requestsBefore = receiver.requests.length;
    // A held delivery (never attempted) and one that failed before the disable (attempted twice).
    for (const { id } of [held, failed]) {
      const before = await deliveryOf(id);
      const refused = await developer.error(REDELIVER, { id });
      expect(refused.extensions).toEqual(recoverRefused.extensions);
      expect(refused.message).toBe(recoverRefused.message);

      const run = await plazaCli(['redeliver', id]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(recoverRefused.message);
      expect(run.stdout).toBe('');

      expect(await deliveryOf(id)).toEqual(before);
    }
    expect(receiver.requests.length).toBe(requestsBefore);

    // plaza webhook enable (the third round's command for enableWebhook): sending resumes, and redelivery is allowed again.
    receiver.responder = () => ({ status: 200 });
    const enabled = await plazaCli(['webhook', 'enable', '--app', app.id, '--json']);
    expect(enabled, enabled.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(enabled.stdout)).toMatchObject({ id: app.id, webhookState: 'ENABLED' });
    expect((await developer.ok<{ app: { webhookState: string } }>(APP_STATE, { id: app.id })).app.webhookState).toBe('ENABLED');
    const again = await plazaCli(['redeliver', failed.id]);
    expect(again, again.stderr).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('SUCCEEDED, 200');
  }, 90_000);
});
