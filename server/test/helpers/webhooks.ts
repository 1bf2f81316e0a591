import { expect, vi } from 'vitest';
import { newPurchaseId } from '../../src/platform/ids.js';
import { WebhookEventType } from '../../src/modules/webhooks/webhook.types.js';
import type { GraphQLTestClient } from './graphql-client.js';
import type { TestPlaza } from './plaza.js';

export const DELIVERY_FIELDS = `id appId event eventName purchaseId payload status attemptCount nextAttemptAt createdAt updatedAt
  attempts { number trigger startedAt durationMs statusCode error responseBodyExcerpt url finished requestHeaders { name value } }`;
/** Every header a webhook request carries, Plaza's and the HTTP client's own (sorted): a receiver sees these and no more. */
export const WEBHOOK_REQUEST_HEADERS = [
  'content-length',
  'content-type',
  'host',
  'user-agent',
  'webhook-id',
  'webhook-signature',
  'webhook-timestamp',
  'x-platform-attempt',
  'x-platform-delivery',
  'x-platform-event',
  'x-platform-signature',
];

export const DELIVERY = `query($id: ID!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;

/**
 * Every attempt as the log shows it, for a FROM clause: those recorded (webhook_attempts) and those in flight
 * (webhook_open_attempts: started, no outcome yet, finished false).
 */
export const ALL_ATTEMPTS = `(SELECT delivery_id, number, trigger, started_at, status_code, error, finished FROM webhook_attempts
   UNION ALL
   SELECT delivery_id, number, trigger, started_at, NULL, NULL, false FROM webhook_open_attempts)`;

/**
 * A row of WRITE_RESULTS' input, as attempt-results.ts writes them: attempt `number` of `deliveryId`, sent to `url`,
 * answered 200, from a run whose claim token (`claim_token`, 'not-held' unless `sent` says) may no longer hold it.
 */
export const succeededResult = (deliveryId: string, number: number, url: string, sent: { headers?: object; event_type?: string; shared?: object; claim_token?: string } = {}) => ({
  keep: false,
  delivery_id: deliveryId,
  claim_token: 'not-held',
  number,
  trigger: 'SCHEDULED',
  started_at: new Date().toISOString(),
  duration_ms: 10,
  status_code: 200,
  error: null,
  excerpt: null,
  url,
  headers: null,
  event_type: null,
  shared: null,
  shared_signature: null,
  kept: null,
  signature: null,
  status: 'SUCCEEDED',
  retry_in_ms: null,
  recovering: false,
  held_reason: null,
  ...sent,
});

/**
 * Points the app's (first) webhook endpoint at `url` straight in the database, making one when it has none: for
 * URLs the API refuses (as if stored before a policy change), where the engine's own checks are under test.
 */
export async function aimWebhookAt(plaza: TestPlaza, appId: string, url: string): Promise<void> {
  await plaza.services.db.transaction(async (manager) => {
    const [, changed]: [unknown, number] = await manager.query('UPDATE webhook_endpoints SET url = $1 WHERE app_id = $2', [url, appId]);
    if (changed === 0) {
      await manager.query(`INSERT INTO webhook_endpoints (id, app_id, url, state, created_at, updated_at) VALUES ('ep_' || substr($2, 5), $2, $1, 'ENABLED', now(), now())`, [
        url,
        appId,
      ]);
    }
    await manager.query('UPDATE apps SET webhook_url = $1 WHERE id = $2', [url, appId]);
  });
}

/** Records an event through the same transactional entry point the marketplace uses. */
export async function emitEvent(
  plaza: TestPlaza,
  appId: string,
  overrides: Partial<{ type: WebhookEventType; userId: string; amountVnd: number; developerShareVnd: number; purchaseId: string }> = {},
) {
  const delivery = await plaza.services.db.transaction((manager) =>
    plaza.services.webhookEvents.recordEvent(manager, {
      type: WebhookEventType.APP_PURCHASED,
      appId,
      userId: 'usr_buyer_1',
      purchaseId: newPurchaseId(),
      amountVnd: 50_000,
      developerShareVnd: 40_000,
      ...overrides,
    }),
  );
  if (!delivery) throw new Error(`app ${appId} has no webhook URL, so no delivery was recorded`);
  return delivery;
}

/** Polls the delivery through the API until `done` holds, as a developer watching the log would. */
export async function waitForDelivery(client: GraphQLTestClient, id: string, done: (d: any) => boolean, timeoutMs = 10_000): Promise<any> {
  return vi.waitFor(
    async () => {
      const seen = (await client.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery;
      if (!seen || !done(seen)) throw new Error(`delivery ${id} did not reach the expected state within ${timeoutMs} ms; last seen: ${JSON.stringify(seen)}`);
      return seen;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/**
 * Resolves once this Plaza's delivery engine has no attempt in flight (claimed, waiting or being sent)
 * and every result it holds is written. With the deliveries a test watches already final and nothing
 * of theirs due, this is the point past which no further request of theirs can reach a receiver and no
 * attempt of theirs is left to record: what a test that asserts "nothing more was sent" waits for.
 */
export async function waitForEngineIdle(plaza: TestPlaza, timeoutMs = 10_000): Promise<void> {
  await expect.poll(() => plaza.services.webhookEngine.attemptsInFlight, { timeout: timeoutMs, interval: 20 }).toBe(0);
  await plaza.services.webhookEngine.drain();
}

export const isFinal = (d: any) => d.status === 'SUCCEEDED' || d.status === 'FAILED';
