import { describe, expect, it } from 'vitest';
import { newPurchaseId } from '../../src/platform/ids.js';
import { WebhookEventType } from '../../src/modules/webhooks/webhook.types.js';
import { submitApp } from '../helpers/factories.js';
import { startTestPlaza } from '../helpers/plaza.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { ALL_ATTEMPTS, emitEvent, isFinal, waitForDelivery } from '../helpers/webhooks.js';
import { waitUntil } from './fault-helpers.js';

// webhook-fairness.test.ts covers one hanging receiver whose deliveries are committed one by one. Here
// the backlogs are committed in bulk, so one claim could take a whole batch (200) for one destination,
// and several hanging destinations could hold every slot of the worker (512) until they time out.
const HANGING_APPS = 4;
const BACKLOG_EACH = 500;
const PER_APP_CAP = 32; // maxInFlightPerApp's default

describe('hanging receivers with large backlogs', () => {
  it('each holds no more than its own slots, so a healthy destination still gets through at once', async () => {
    // No hanging attempt may end within the test, however slow the machine: a healthy delivery that had to
    // wait for a hanging one's slot could only get through after this timeout.
    const plaza = await startTestPlaza({ WEBHOOK_TIMEOUT: '30s', WEBHOOK_CLAIM_LEASE: '40s', WEBHOOK_RETRY_SCHEDULE: '1h' });
    const developer = await plaza.signIn('hang@studio.test');
    const hanging = await WebhookReceiver.start(() => 'hang');
    const hangingApps: { id: string }[] = [];
    for (let i = 0; i < HANGING_APPS; i++) hangingApps.push(await submitApp(developer, { webhookUrl: hanging.url(`/app-${i}`) }));
    const healthy = await WebhookReceiver.start();
    const healthyApp = await submitApp(developer, { webhookUrl: healthy.url() });

    await plaza.services.db.transaction((manager) =>
      plaza.services.webhookEvents.insert(
        manager,
        hangingApps.flatMap((app) =>
          Array.from({ length: BACKLOG_EACH }, () => ({
            type: WebhookEventType.APP_PURCHASED,
            appId: app.id,
            userId: 'usr_buyer_1',
            purchaseId: newPurchaseId(),
            amountVnd: 50_000,
            developerShareVnd: 40_000,
          })),
        ),
      ),
    );
    // Attempts open per destination, as recorded when claimed: every hanging app has taken what it may.
    const openPerApp = async () =>
      (await plaza.services.db.query(
        `SELECT d.app_id, count(*)::int AS open FROM ${ALL_ATTEMPTS} a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE NOT a.finished GROUP BY d.app_id`,
      )) as { app_id: string; open: number }[];
    const open = await waitUntil(
      'every hanging app to hold its slots',
      async () => {
        const rows = await openPerApp();
        return rows.length === HANGING_APPS && rows.every((r) => r.open >= PER_APP_CAP) ? rows : undefined;
      },
      30_000,
    );
    expect(open.map((r) => r.open)).toEqual(Array(HANGING_APPS).fill(PER_APP_CAP));

    const delivery = await emitEvent(plaza, healthyApp.id);
    expect((await waitForDelivery(developer, delivery.id, isFinal, 25_000)).status).toBe('SUCCEEDED');
    // Through while every hanging attempt was still open (none had timed out to free a slot), and nothing
    // more was claimed for the hanging apps.
    expect((await openPerApp()).map((r) => r.open)).toEqual(Array(HANGING_APPS).fill(PER_APP_CAP));
  }, 120_000);
});
