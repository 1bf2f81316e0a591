import { afterAll, describe, expect, it } from 'vitest';
import { newPurchaseId } from '../../src/platform/ids.js';
import { WebhookEventType } from '../../src/modules/webhooks/webhook.types.js';
import { submitApp } from '../helpers/factories.js';
import { startTestPlaza } from '../helpers/plaza.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { countByStatus, openDatabase, requestsPerDelivery, startWorkerProcess, waitUntil } from './fault-helpers.js';
import { ALL_ATTEMPTS } from '../helpers/webhooks.js';

const DELIVERIES = 1000;
// Claims expire quickly so the takeover after the kill is quick; a lease must outlast the timeout by a second.
const WORKER_ENV = { WEBHOOK_TIMEOUT: '1s', WEBHOOK_CLAIM_LEASE: '3s', WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms' };

describe('a worker killed with SIGKILL in the middle of 1,000 deliveries', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  // Two worker processes' starts, 1,000 deliveries and a lease's expiry: 31 s beside other work on two cores, past the 30 s default.
  it('loses none: after a restart every delivery succeeds, and only those in flight at the kill arrive twice', { timeout: 120_000 }, async () => {
    // The API delivers nothing itself: every attempt is made by a worker process.
    const api = await startTestPlaza({ RUN_WORKER: 'false' });
    const db = await openDatabase(api.databaseUrl);
    cleanups.push(() => db.end());
    const developer = await api.signIn('crash@studio.test');
    // Slow enough answers (100 ms) that the 1,000 take a few rounds of claims, so the kill lands mid-way.
    const receiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok', delayMs: 100 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });

    const facts = Array.from({ length: DELIVERIES }, () => ({
      type: WebhookEventType.APP_PURCHASED,
      appId: app.id,
      userId: 'usr_buyer_1',
      purchaseId: newPurchaseId(),
      amountVnd: 50_000,
      developerShareVnd: 40_000,
    }));
    const recorded = await api.services.db.transaction((manager) => api.services.webhookEvents.insert(manager, facts));
    expect(recorded).toHaveLength(DELIVERIES);

    const first = await startWorkerProcess(api.databaseUrl, WORKER_ENV);
    await receiver.waitForRequests(300, 20_000);
    await first.stop('SIGKILL');

    // The dead worker's state, frozen: nothing else delivers until the second worker starts.
    const succeededAtKill = (await countByStatus(db, app.id)).SUCCEEDED ?? 0;
    const { rows: claimed } = await db.query<{ id: string }>(
      "SELECT id FROM webhook_deliveries WHERE app_id = $1 AND status IN ('PENDING', 'RETRYING') AND claim_token IS NOT NULL",
      [app.id],
    );
    const inFlightAtKill = new Set(claimed.map((r) => r.id));
    expect(succeededAtKill).toBeGreaterThan(0);
    expect(succeededAtKill).toBeLessThan(DELIVERIES);
    expect(inFlightAtKill.size).toBeGreaterThan(0);

    const second = await startWorkerProcess(api.databaseUrl, WORKER_ENV);
    cleanups.push(() => second.stop('SIGTERM'));
    await waitUntil('every delivery to succeed after the restart', async () => (await countByStatus(db, app.id)).SUCCEEDED === DELIVERIES, 30_000, 200);

    // None lost: the receiver saw every delivery at least once.
    const perDelivery = requestsPerDelivery(receiver);
    expect(recorded.filter((d) => !perDelivery.has(d.id))).toEqual([]);
    // Duplicates only for deliveries that were in flight when the worker died.
    const duplicated = [...perDelivery].filter(([, n]) => n > 1);
    expect(duplicated.filter(([id]) => !inFlightAtKill.has(id))).toEqual([]);
    expect(Math.max(...perDelivery.values())).toBeLessThanOrEqual(2);

    // The log tells the truth: each delivery in flight at the kill has its interrupted attempt and one
    // that succeeded; every other delivery was attempted exactly once.
    const { rows: attempts } = await db.query<{ delivery_id: string; attempts: number; interrupted: number; open: number }>(
      `SELECT a.delivery_id, count(*)::int AS attempts, count(*) FILTER (WHERE a.error LIKE 'interrupted%')::int AS interrupted, count(*) FILTER (WHERE NOT a.finished)::int AS open
         FROM ${ALL_ATTEMPTS} a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.app_id = $1 GROUP BY a.delivery_id`,
      [app.id],
    );
    expect(attempts).toHaveLength(DELIVERIES);
    for (const row of attempts) {
      const wasInFlight = inFlightAtKill.has(row.delivery_id);
      expect(row, `delivery ${row.delivery_id} (in flight at the kill: ${wasInFlight})`).toMatchObject({
        attempts: wasInFlight ? 2 : 1,
        interrupted: wasInFlight ? 1 : 0,
        open: 0,
      });
    }
    expect(await second.stop('SIGTERM'), second.output()).toBe(0);
  });
});
