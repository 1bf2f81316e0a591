import type { WebhookDeliveryMeta, WebhookEvent } from '@plaza/app-sdk/server';

export interface ReceivedEvent {
  receivedAt: string;
  deliveryId: string | undefined;
  attempt: number | undefined;
  event: WebhookEvent;
}

const KEPT_EVENTS = 200;

/**
 * Who has premium, from Plaza's webhooks: `app.purchased` unlocks it for the buyer, `app.refunded`
 * takes it back. Kept in memory, so a restart forgets every purchase (a real app stores this).
 */
export class PremiumLedger {
  /** userId -> purchase ids that currently grant premium (a user may buy again after a refund). */
  readonly #activePurchases = new Map<string, Set<string>>();
  /** Delivery is at least once and retries can reorder events: a late purchase must not undo its refund. */
  readonly #refundedPurchases = new Set<string>();
  readonly #events: ReceivedEvent[] = [];

  apply(event: WebhookEvent, meta?: WebhookDeliveryMeta): void {
    this.#record(event, meta);
    if (event.event === 'app.purchased' && !this.#refundedPurchases.has(event.purchase_id)) {
      const purchases = this.#activePurchases.get(event.user_id) ?? new Set<string>();
      purchases.add(event.purchase_id);
      this.#activePurchases.set(event.user_id, purchases);
    }
    if (event.event === 'app.refunded') {
      this.#refundedPurchases.add(event.purchase_id);
      this.#activePurchases.get(event.user_id)?.delete(event.purchase_id);
    }
  }

  isPremium(userId: string): boolean {
    return (this.#activePurchases.get(userId)?.size ?? 0) > 0;
  }

  /** Newest last; the last KEPT_EVENTS only. */
  events(): readonly ReceivedEvent[] {
    return this.#events;
  }

  #record(event: WebhookEvent, meta: WebhookDeliveryMeta | undefined): void {
    this.#events.push({ receivedAt: new Date().toISOString(), deliveryId: meta?.deliveryId, attempt: meta?.attempt, event });
    if (this.#events.length > KEPT_EVENTS) this.#events.splice(0, this.#events.length - KEPT_EVENTS);
  }
}
