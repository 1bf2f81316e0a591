import { createHmac } from 'node:crypto';
import { Pool } from 'undici';
import { findFreePort } from '../platform/embedded-postgres.js';
import { newPurchaseId } from '../platform/ids.js';
import { webhookPayload } from '../modules/webhooks/webhook-events.service.js';
import { WebhookEventType } from '../modules/webhooks/webhook.types.js';
import { commitEvents, createApps, startBenchDatabase, startBenchPlaza, startReceiver, waitForVerified, waitUntilNone } from './harness.js';

export interface ThroughputResult {
  events: number;
  /** (a) the limit: sign and POST with an undici pool, storing nothing. */
  bareLoopPerSecond: number;
  /** Plaza: first business commit to last verified receipt. */
  plazaPerSecond: number;
  /** PostgreSQL write transactions (commits that reach the disk) per delivery, business commit included. */
  commitsPerDelivery: number;
}

const APPS = 10;
const POOL_CONNECTIONS = 50;

/**
 * Benchmark 1: `events` events for apps with webhook URLs, each committed in its own transaction
 * through the entry point purchases use, delivered signed to a receiver that verifies every signature.
 */
export async function throughputBenchmark(events: number): Promise<ThroughputResult> {
  const database = await startBenchDatabase();
  const port = await findFreePort();
  const plaza = await startBenchPlaza(database.databaseUrl, { WEBHOOK_RETRY_SCHEDULE: '1s' });
  try {
    const { appIds, secretsByAppId } = await createApps(plaza, APPS, `http://127.0.0.1:${port}/bench/webhook`);
    const receiver = await startReceiver(secretsByAppId, { port });
    try {
      const bareLoopPerSecond = await bareLoop(events, receiver.port, appIds, secretsByAppId);
      await receiver.reset();

      const { services } = plaza;
      // Write transactions, counted exactly by the transaction-id counter (the statistics views lag by
      // up to ten seconds): every commit that costs an fsync consumed one id.
      const commits = async () => Number((await services.db.query('SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS next_xid'))[0].next_xid);
      const commitsBefore = await commits();
      const started = performance.now();
      await commitEvents(plaza, appIds, events);
      const finished = await waitForVerified(receiver, events, 600_000);
      const plazaPerSecond = events / ((finished - started) / 1000);
      // Let the last results be written, then count what the whole run committed.
      await waitUntilNone(plaza, ['PENDING', 'RETRYING'], 60_000);
      const commitsPerDelivery = (await commits() - commitsBefore) / events;
      return { events, bareLoopPerSecond, plazaPerSecond, commitsPerDelivery };
    } finally {
      await receiver.close();
    }
  } finally {
    await plaza.stop();
    await database.close();
  }
}

async function bareLoop(events: number, port: number, appIds: string[], secretsByAppId: Record<string, string>): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: POOL_CONNECTIONS });
  const at = new Date();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: POOL_CONNECTIONS }, async () => {
      while (next < events) {
        const i = next++;
        const appId = appIds[i % appIds.length];
        const body = webhookPayload({ type: WebhookEventType.APP_PURCHASED, appId, userId: `usr_${i}`, purchaseId: newPurchaseId(), amountVnd: 50_000, developerShareVnd: 40_000 }, at);
        const signature = `sha256=${createHmac('sha256', secretsByAppId[appId]).update(body).digest('hex')}`;
        const response = await pool.request({ path: '/bench/webhook', method: 'POST', body, headers: { 'content-type': 'application/json', 'x-platform-signature': signature } });
        await response.body.dump();
        if (response.statusCode !== 200) throw new Error(`bare loop: receiver answered ${response.statusCode}`);
      }
    }),
  );
  const perSecond = events / ((performance.now() - started) / 1000);
  await pool.close();
  return perSecond;
}
