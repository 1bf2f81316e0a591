import type { EntityManager } from 'typeorm';
import type { WebhookEventType } from '../../platform/webhook-enums.js';

/** Something that happened in the store to a user and an app: a purchase, an install, an uninstall, a refund. */
export interface StoreEvent {
  type: WebhookEventType;
  appId: string;
  userId: string;
  purchaseId: string;
  amountVnd: number;
  developerShareVnd: number;
  at: Date;
}

/**
 * Where the store records what happened, in the transaction that made it happen (so an event is recorded
 * if and only if its change commits). The webhooks feature does it (WebhookEventsService), handed in by the
 * wiring: marketplace names what it needs here instead of importing webhooks, which asks marketplace what a
 * sale carries for its test events.
 */
export interface StoreEvents {
  recordEvent(manager: EntityManager, event: StoreEvent): Promise<unknown>;
}
