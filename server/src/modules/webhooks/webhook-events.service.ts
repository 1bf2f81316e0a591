import type { DataSource, EntityManager } from 'typeorm';
import { badInput } from '../../platform/errors.js';
import { newPurchaseId, newWebhookId } from '../../platform/ids.js';
import { App } from '../apps/app.entity.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookEvent } from './webhook-event.entity.js';
import { DeliveryStatus, EVENT_WIRE_NAME, WebhookEventType } from './webhook.types.js';

/** Workers LISTEN here; a delivery committed anywhere wakes them at once. */
export const DELIVERIES_DUE_CHANNEL = 'plaza_deliveries_due';

export interface EventFacts {
  type: WebhookEventType;
  appId: string;
  userId: string;
  purchaseId: string;
  amountVnd: number;
  developerShareVnd: number;
  at?: Date;
}

/** The body of interface.md: exactly these seven fields, in this order. */
export function webhookPayload(facts: EventFacts, at: Date): string {
  return JSON.stringify({
    event: EVENT_WIRE_NAME[facts.type],
    app_id: facts.appId,
    user_id: facts.userId,
    purchase_id: facts.purchaseId,
    amount_vnd: facts.amountVnd,
    developer_share_vnd: facts.developerShareVnd,
    timestamp: at.toISOString(),
  });
}

export class WebhookEventsService {
  constructor(private readonly db: DataSource) {}

  /**
   * The entry point for everything that causes a webhook: call it with the manager of the
   * transaction that records the purchase, install or refund, so the event and its delivery commit
   * with it or not at all. Returns null (and records nothing) when the app has no webhook URL.
   */
  async recordEvent(manager: EntityManager, facts: EventFacts): Promise<WebhookDelivery | null> {
    const app = await manager.findOne(App, { where: { id: facts.appId }, select: { id: true, webhookUrl: true } });
    if (!app?.webhookUrl) return null;
    const [delivery] = await this.insert(manager, [facts]);
    return delivery;
  }

  /** Many events in one round trip each for events and deliveries (bulk business operations, benchmarks). */
  async insert(manager: EntityManager, all: EventFacts[]): Promise<WebhookDelivery[]> {
    const events: WebhookEvent[] = [];
    const deliveries: WebhookDelivery[] = [];
    for (const facts of all) {
      const at = facts.at ?? new Date();
      const event: WebhookEvent = { id: newWebhookId.event(at.getTime()), type: EVENT_WIRE_NAME[facts.type], appId: facts.appId, userId: facts.userId, purchaseId: facts.purchaseId, payload: webhookPayload(facts, at), createdAt: at };
      events.push(event);
      deliveries.push(
        Object.assign(new WebhookDelivery(), {
          id: newWebhookId.delivery(at.getTime()),
          eventId: event.id,
          appId: facts.appId,
          eventType: event.type,
          purchaseId: facts.purchaseId,
          status: DeliveryStatus.PENDING,
          attemptCount: 0,
          scheduledAttemptsDone: 0,
          nextAttemptAt: at,
          claimToken: null,
          claimExpiresAt: null,
          createdAt: at,
          updatedAt: at,
          payloadText: event.payload,
        }),
      );
    }
    await manager.insert(WebhookEvent, events);
    await manager.insert(WebhookDelivery, deliveries.map(({ payloadText: _p, attemptList: _a, ...row }) => row));
    // Delivered on commit, once per transaction however many events it holds.
    await manager.query('SELECT pg_notify($1, $2)', [DELIVERIES_DUE_CHANNEL, '']);
    return deliveries;
  }

  /** A signed `app.test` delivery to the app's webhook URL, through the same engine as real events. */
  async sendTest(appId: string, userId: string): Promise<WebhookDelivery> {
    return this.db.transaction(async (manager) => {
      const delivery = await this.recordEvent(manager, { type: WebhookEventType.APP_TEST, appId, userId, purchaseId: newPurchaseId(), amountVnd: 0, developerShareVnd: 0 });
      if (!delivery) throw badInput('webhookUrl', 'This app has no webhook URL; set one before sending a test event');
      return delivery;
    });
  }
}
