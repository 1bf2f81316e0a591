import { describe, expect, it } from 'vitest';
import { newPurchaseId } from '../src/platform/ids.js';
import { WebhookEventType } from '../src/modules/webhooks/index.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

const EVENTS = 300;

type Counters = { updates: number; hot: number };

describe('claiming a delivery', () => {
  it('is an update in place (HOT): the row’s page keeps room for its claimed version, so no index is written again', async () => {
    const plaza = await startTestPlaza();
    const developer = await plaza.signIn('hot-claims@studio.test');
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const counters = async (): Promise<Counters> =>
      (
        (await plaza.services.db.query(`SELECT n_tup_upd::int AS updates, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`)) as Counters[]
      )[0]!;
    const before = await counters();

    // One bulk producer's transaction: the deliveries share their pages, as a busy app's do.
    await plaza.services.db.transaction((manager) =>
      plaza.services.webhookEvents.insert(
        manager,
        Array.from({ length: EVENTS }, (_, i) => ({
          type: WebhookEventType.APP_PURCHASED,
          appId: app.id,
          userId: `usr_hot_${i}`,
          purchaseId: newPurchaseId(),
          amountVnd: 50_000,
          developerShareVnd: 40_000,
        })),
      ),
    );
    await expect.poll(() => receiver.requests.length, { timeout: 120_000, interval: 100 }).toBeGreaterThanOrEqual(EVENTS);

    // Each delivery is updated at least twice (its claim, its result); the worker's connections report their
    // counts within PostgreSQL's idle interval (10 s) once they are done.
    await expect.poll(async () => (await counters()).updates - before.updates, { timeout: 60_000, interval: 500 }).toBeGreaterThanOrEqual(2 * EVENTS);
    const after = await counters();
    const updates = after.updates - before.updates;
    const hot = after.hot - before.hot;
    console.log(JSON.stringify({ deliveries: EVENTS, updates, hot, hotPerDelivery: hot / EVENTS }));
    // A result changes the status and the next attempt's time, which indexes cover: never HOT. A claim is, with
    // room on its page: nearly every claim (at fillfactor 70, about 55 of 100 deliveries' claims moved to another page).
    expect(hot).toBeGreaterThanOrEqual(0.8 * EVENTS);
  }, 240_000);
});
