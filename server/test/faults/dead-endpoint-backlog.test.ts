import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/embedded-postgres.js';
import { newPurchaseId } from '../../src/platform/ids.js';
import { WebhookEventType } from '../../src/modules/webhooks/webhook.types.js';
import { submitApp } from '../helpers/factories.js';
import { startTestPlaza, type TestPlaza } from '../helpers/plaza.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent } from '../helpers/webhooks.js';
import { requestsPerDelivery, waitUntil } from './fault-helpers.js';

const DEAD_BACKLOG = 10_000;
const HEALTHY_EVENTS = 50;
/**
 * What these tests hold to is order, not speed (how fast a healthy delivery arrives beside a dead
 * backlog is measured by `pnpm bench`): a healthy delivery, committed after the whole dead backlog,
 * arrives while older dead deliveries are still waiting for their first attempt, so it did not queue
 * behind them; and it never waits for a hanging attempt to time out. Both hold however slow the machine.
 */
const HANGING_TIMEOUT = '30s';

const fact = (appId: string) => ({ type: WebhookEventType.APP_PURCHASED, appId, userId: 'usr_buyer_1', purchaseId: newPurchaseId(), amountVnd: 50_000, developerShareVnd: 40_000 });

/** Commits the dead app's backlog in a few large transactions, as a burst of purchases would. */
async function seedBacklog(plaza: TestPlaza, appId: string): Promise<void> {
  for (let i = 0; i < DEAD_BACKLOG; i += 2500) {
    await plaza.services.db.transaction((manager) =>
      plaza.services.webhookEvents.insert(
        manager,
        Array.from({ length: 2500 }, () => fact(appId)),
      ),
    );
  }
}

/**
 * Commits healthy events one by one, 20 ms apart, while the backlog is worked; resolves when each has
 * arrived once, with the time the last one arrived.
 */
async function healthyDelivered(plaza: TestPlaza, appId: string, healthy: WebhookReceiver): Promise<number> {
  const committedAt = new Map<string, number>();
  for (let i = 0; i < HEALTHY_EVENTS; i++) {
    const delivery = await emitEvent(plaza, appId);
    committedAt.set(delivery.id, Date.now());
    await new Promise((r) => setTimeout(r, 20));
  }
  await healthy.waitForRequests(HEALTHY_EVENTS, 60_000);
  const perDelivery = requestsPerDelivery(healthy);
  expect(new Set(perDelivery.keys())).toEqual(new Set(committedAt.keys()));
  return Math.max(...healthy.requests.map((r) => r.receivedAt));
}

const pendingOf = async (plaza: TestPlaza, appId: string) =>
  Number((await plaza.services.db.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE app_id = $1 AND status = 'PENDING'", [appId]))[0].n);

/** Dead-backlog deliveries (all committed before any healthy one) whose first attempt had not started by `at`. */
const untriedAt = async (plaza: TestPlaza, appId: string, at: number) =>
  Number(
    (
      await plaza.services.db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries d
          WHERE d.app_id = $1 AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.started_at <= $2)`,
        [appId, new Date(at)],
      )
    )[0].n,
  );

describe('10,000 deliveries to a dead endpoint', () => {
  it('refusing connections: deliveries to a healthy endpoint overtake the older backlog instead of queueing behind it', async () => {
    // One scheduled attempt each within the test: a failed attempt waits an hour for the next.
    const plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT: '2s', WEBHOOK_CLAIM_LEASE: '10s' });
    const developer = await plaza.signIn('dead@studio.test');
    const refusing = `http://127.0.0.1:${await findFreePort()}/webhooks`; // nothing listens there
    const deadApp = await submitApp(developer, { webhookUrl: refusing });
    const healthy = await WebhookReceiver.start();
    const healthyApp = await submitApp(developer, { webhookUrl: healthy.url() });

    await seedBacklog(plaza, deadApp.id);
    await waitUntil('the first refused attempts', async () => (await pendingOf(plaza, deadApp.id)) < DEAD_BACKLOG);
    const lastArrival = await healthyDelivered(plaza, healthyApp.id, healthy);
    // When the last healthy delivery arrived, older dead deliveries had not even been tried: every healthy
    // one went ahead of the backlog committed before it, while competing with it.
    expect(await untriedAt(plaza, deadApp.id, lastArrival)).toBeGreaterThan(0);
  }, 120_000);

  it('hanging until the timeout: the dead endpoint holds only its own slots, healthy deliveries never wait for them', async () => {
    const plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT: HANGING_TIMEOUT, WEBHOOK_CLAIM_LEASE: '40s' });
    const developer = await plaza.signIn('hung@studio.test');
    const hanging = await WebhookReceiver.start(() => 'hang');
    const deadApp = await submitApp(developer, { webhookUrl: hanging.url() });
    const healthy = await WebhookReceiver.start();
    const healthyApp = await submitApp(developer, { webhookUrl: healthy.url() });

    await seedBacklog(plaza, deadApp.id);
    await hanging.waitForRequests(1);
    const lastArrival = await healthyDelivered(plaza, healthyApp.id, healthy);
    expect(await untriedAt(plaza, deadApp.id, lastArrival)).toBeGreaterThan(DEAD_BACKLOG / 2);
    // Every healthy delivery arrived while the dead endpoint's first attempts were still hanging: none of
    // them waited for a slot that only a timeout would free.
    const finishedDead = await plaza.services.db.query(
      `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.app_id = $1 AND a.finished`,
      [deadApp.id],
    );
    expect(finishedDead[0].n).toBe(0);
    // What the dead endpoint holds: at most its keep-alive connections' worth of requests open at once.
    expect(hanging.mostHangingAtOnce).toBeGreaterThan(0);
    expect(hanging.mostHangingAtOnce).toBeLessThanOrEqual(32);
  }, 120_000);
});
