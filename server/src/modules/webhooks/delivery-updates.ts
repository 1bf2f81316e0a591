import type { EntityManager } from 'typeorm';
import { Topic, type PostgresPubSub } from '../../platform/pubsub.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import type { DeliveryStatus } from './webhook.types.js';
import type { ClaimedDelivery, UpdatedRow } from './delivery/delivery-queries.js';

/** What travels through NOTIFY when a delivery changes: small, so many fit in one message. */
export interface DeliveryUpdate {
  id: string;
  appId: string;
  /** Absent from a previous release's updates (before endpoints): its app's first endpoint then. */
  endpointId?: string | null;
  ownerId: string;
  eventType: string;
  purchaseId: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** The update for a delivery the engine sent (its claimed row) after a statement moved it on (`row`). */
export const deliveryUpdate = (delivery: ClaimedDelivery, row: UpdatedRow): DeliveryUpdate => ({
  id: row.id,
  appId: delivery.app_id,
  endpointId: delivery.endpoint_id,
  ownerId: delivery.owner_id,
  eventType: delivery.event_type,
  purchaseId: delivery.purchase_id,
  status: row.status,
  attemptCount: row.attempt_count,
  nextAttemptAt: row.next_attempt_at,
  createdAt: delivery.created_at,
  updatedAt: row.updated_at,
});

/** Routed by app id; subscribers to all of a developer's apps filter on ownerId. */
export function publishDeliveryUpdates(manager: EntityManager, pubSub: PostgresPubSub, updates: DeliveryUpdate[]): Promise<void> {
  return pubSub.publishManyIn(
    manager,
    Topic.WEBHOOK_DELIVERY_UPDATED,
    updates.map((update) => ({ id: update.appId, payload: update })),
  );
}

/** A delivery as the API shows it, rebuilt from an update that crossed NOTIFY as JSON. */
export function deliveryFromUpdate(update: DeliveryUpdate): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    id: update.id,
    appId: update.appId,
    // The endpoint migration 1796000028000 made from the app's Webhook URL (`ep_` and the app's ULID), where a delivery without one went.
    endpointId: update.endpointId ?? `ep_${update.appId.slice('app_'.length)}`,
    eventType: update.eventType,
    purchaseId: update.purchaseId,
    status: update.status,
    attemptCount: update.attemptCount,
    nextAttemptAt: update.nextAttemptAt ? new Date(update.nextAttemptAt) : null,
    createdAt: new Date(update.createdAt),
    updatedAt: new Date(update.updatedAt),
  });
}
