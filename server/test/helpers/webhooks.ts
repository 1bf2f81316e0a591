import { newPurchaseId } from '../../src/platform/ids.js';
import { WebhookEventType } from '../../src/modules/webhooks/webhook.types.js';
import type { GraphQLTestClient } from './graphql-client.js';
import type { TestPlaza } from './plaza.js';

export const DELIVERY_FIELDS = `id appId event eventName purchaseId payload status attemptCount nextAttemptAt createdAt updatedAt
  attempts { number trigger startedAt durationMs statusCode error responseBodyExcerpt url finished requestHeaders { name value } }`;
export const DELIVERY = `query($id: ID!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;

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
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await client.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery;
    if (last && done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`delivery ${id} did not reach the expected state within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
}

export const isFinal = (d: any) => d.status === 'SUCCEEDED' || d.status === 'FAILED';
