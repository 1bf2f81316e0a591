import { beforeAll, describe, expect, it } from 'vitest';
import { pruneOldAttempts } from '../src/modules/webhooks/attempt-retention.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { loadConfig } from '../src/config.js';
import { newPurchaseId } from '../src/platform/ids.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';

const DAY = 86_400_000;
let plaza: TestPlaza;
let appId: string;

beforeAll(async () => {
  // No worker: the test sets each delivery's state itself.
  plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  const developer = await plaza.signIn('retention@studio.test');
  appId = (await submitApp(developer, { webhookUrl: 'https://hooks.example/plaza' })).id;
});

/** A delivery created `daysAgo` days ago, in `status`, with `attempts` recorded attempts. */
async function deliveryFrom(daysAgo: number, status: string, attempts: number): Promise<string> {
  const { db, webhookEvents } = plaza.services;
  const at = new Date(Date.now() - daysAgo * DAY);
  const delivery = await db.transaction((manager) =>
    webhookEvents.recordEvent(manager, {
      type: WebhookEventType.APP_PURCHASED,
      appId,
      userId: 'usr_1',
      purchaseId: newPurchaseId(at.getTime()),
      amountVnd: 1000,
      developerShareVnd: 800,
      at,
    }),
  );
  await db.query(`UPDATE webhook_deliveries SET status = $2, attempt_count = $3 WHERE id = $1`, [delivery!.id, status, attempts]);
  for (let number = 1; number <= attempts; number++) {
    await db.query(`INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished) VALUES ($1, $2, 'SCHEDULED', $3, 12, 500, true)`, [
      delivery!.id,
      number,
      at,
    ]);
  }
  return delivery!.id;
}

const attemptsOf = async (deliveryId: string) =>
  (await plaza.services.db.query(`SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1`, [deliveryId]))[0].n as number;

describe('attempt retention', () => {
  it('deletes the attempts of finished deliveries older than the retention, and nothing else', async () => {
    const oldSucceeded = await deliveryFrom(40, 'SUCCEEDED', 2);
    const oldFailed = await deliveryFrom(31, 'FAILED', 6);
    const oldStillRetrying = await deliveryFrom(40, 'RETRYING', 3);
    const recentFailed = await deliveryFrom(29, 'FAILED', 6);

    const deleted = await pruneOldAttempts(plaza.services.db, 30 * DAY);

    expect(deleted).toBe(8);
    expect(await attemptsOf(oldSucceeded)).toBe(0);
    expect(await attemptsOf(oldFailed)).toBe(0);
    expect(await attemptsOf(oldStillRetrying)).toBe(3);
    expect(await attemptsOf(recentFailed)).toBe(6);
    // The deliveries themselves stay in Webhook Logs with their outcome and attempt count.
    const [row] = await plaza.services.db.query(`SELECT status, attempt_count FROM webhook_deliveries WHERE id = $1`, [oldFailed]);
    expect(row).toEqual({ status: 'FAILED', attempt_count: 6 });
    expect(await pruneOldAttempts(plaza.services.db, 30 * DAY)).toBe(0);
  });

  it('deletes the request headers those attempts shared with them', async () => {
    const old = await deliveryFrom(50, 'SUCCEEDED', 1);
    const recent = await deliveryFrom(5, 'SUCCEEDED', 1);
    for (const id of [old, recent])
      await plaza.services.db.query(`INSERT INTO webhook_request_headers (delivery_id, headers) VALUES ($1, '{"x-platform-event": "app.purchased"}')`, [id]);

    await pruneOldAttempts(plaza.services.db, 30 * DAY);

    const kept = await plaza.services.db.query(`SELECT delivery_id FROM webhook_request_headers WHERE delivery_id = ANY($1::text[])`, [[old, recent]]);
    expect(kept).toEqual([{ delivery_id: recent }]);
  });

  it('is configured by WEBHOOK_ATTEMPT_RETENTION, 90 days by default', () => {
    expect(loadConfig({}).webhookAttemptRetentionMs).toBe(90 * DAY);
    expect(loadConfig({ WEBHOOK_ATTEMPT_RETENTION: '14d' }).webhookAttemptRetentionMs).toBe(14 * DAY);
    expect(() => loadConfig({ WEBHOOK_ATTEMPT_RETENTION: 'forever' })).toThrow(/WEBHOOK_ATTEMPT_RETENTION/);
  });
});
