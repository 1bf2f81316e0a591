import { describe, expect, it } from 'vitest';
import { startTestPlaza } from './helpers/plaza.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { ALL_ATTEMPTS, emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

type TestPlaza = Awaited<ReturnType<typeof startTestPlaza>>;
type Developer = Awaited<ReturnType<TestPlaza['signIn']>>;

/**
 * Long enough that no slow attempt ends while a test runs, however slow the machine: a healthy delivery
 * that had to wait for a slow one's slot could only get through after this.
 */
const SLOW_TIMEOUT = { WEBHOOK_TIMEOUT: '30s', WEBHOOK_CLAIM_LEASE: '40s' };

/** The slow app's attempts still waiting for an answer. */
const openAttemptsOf = async (plaza: TestPlaza, appId: string) =>
  Number(
    (
      await plaza.services.db.query(`SELECT count(*)::int AS n FROM ${ALL_ATTEMPTS} a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.app_id = $1 AND NOT a.finished`, [
        appId,
      ])
    )[0].n,
  );

/**
 * Gives the slow app a backlog of 100 and waits until it holds its 32 slots, then sends 5 events to
 * the healthy app and waits for them to succeed.
 */
async function healthyWhileSlowHangs(plaza: TestPlaza, developer: Developer, slow: { appId: string; receiver: WebhookReceiver }, healthyAppId: string): Promise<void> {
  for (let i = 0; i < 100; i++) await emitEvent(plaza, slow.appId);
  await slow.receiver.waitForRequests(32, 30_000);
  const deliveries = [];
  for (let i = 0; i < 5; i++) deliveries.push(await emitEvent(plaza, healthyAppId));
  for (const delivery of deliveries) expect((await waitForDelivery(developer, delivery.id, isFinal, 25_000)).status).toBe('SUCCEEDED');
  // Delivered while the slow endpoint still held every slot it may have: nothing of it had ended, so
  // the healthy deliveries went through beside it rather than after it.
  expect(await openAttemptsOf(plaza, slow.appId)).toBe(32);
}

describe('a slow destination', () => {
  it('holds only its own slots: other apps’ deliveries go through at once', async () => {
    const plaza = await startTestPlaza({ ...SLOW_TIMEOUT, WEBHOOK_RETRY_SCHEDULE: '1h' });
    const developer = await plaza.signIn('fair@studio.test');
    let hanging = 0;
    let mostHangingAtOnce = 0;
    const slow = await WebhookReceiver.start(() => {
      hanging += 1;
      mostHangingAtOnce = Math.max(mostHangingAtOnce, hanging);
      return 'hang';
    });
    const healthy = await WebhookReceiver.start();
    const slowApp = await submitApp(developer, { webhookUrl: slow.url() });
    const healthyApp = await submitApp(developer, { webhookUrl: healthy.url() });

    await healthyWhileSlowHangs(plaza, developer, { appId: slowApp.id, receiver: slow }, healthyApp.id);
    expect(mostHangingAtOnce).toBe(32);
    expect(slow.requests.length).toBe(32);

    // While the slow destination's backlog waits for a free slot, the engine waits too instead of polling
    // hot: about one claim a second (its idle check). Counted by the engine's own metric: PostgreSQL's
    // commit counter publishes a backend's figures up to ten seconds late, so it counted the burst before.
    const before = await plaza.services.metrics.claimCount();
    await new Promise((r) => setTimeout(r, 3000));
    expect((await plaza.services.metrics.claimCount()) - before).toBeLessThanOrEqual(6);
  }, 120_000);

  it('on a host shared with other apps, leaves them connections: one slow app cannot take its host’s whole pool', async () => {
    const plaza = await startTestPlaza({ ...SLOW_TIMEOUT, WEBHOOK_RETRY_SCHEDULE: '1h' });
    const developer = await plaza.signIn('shared-host@studio.test');
    // One server, one origin, two apps: one path hangs, the other answers.
    const host = await WebhookReceiver.start((request) => (request.path === '/slow' ? 'hang' : { status: 200, body: 'ok' }));
    const slowApp = await submitApp(developer, { webhookUrl: host.url('/slow') });
    const healthyApp = await submitApp(developer, { webhookUrl: host.url('/healthy') });

    await healthyWhileSlowHangs(plaza, developer, { appId: slowApp.id, receiver: host }, healthyApp.id);
    // The slow app still holds exactly its own share.
    expect(host.requests.filter((r) => r.path === '/slow')).toHaveLength(32);
  }, 120_000);
});
