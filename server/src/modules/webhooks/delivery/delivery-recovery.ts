import type { DataSource } from 'typeorm';
import { badInput, notFound } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/auth/principal.js';
import type { PostgresPubSub } from '../../../platform/pubsub.js';
import { idAtTime, type DeliveryLogService } from '../delivery-log.service.js';
import { deliveryUpdate, publishDeliveryUpdates } from '../delivery-updates.js';
import type { WebhookDelivery } from '../webhook-delivery.entity.js';
import type { WebhookRecovery } from '../webhook-recovery.type.js';
import { AttemptTrigger } from '../webhook.types.js';
import { WebhookEndpointState } from '../endpoints/webhook-endpoint.types.js';
import { webhookErrors } from '../webhook.errors.js';
import { rollUp, ROLL_UP_ALONE } from './attempt-rollup.js';
import { attemptRecord } from './attempt-results.js';
import { RECORD_LATE_OUTCOMES, recordAttemptsBounds } from './sql-fragments.js';
import type { DeliveryEngine } from './delivery-engine.js';
import type { ClaimedDelivery, UpdatedRow } from './delivery-queries.js';
import { DeliveryWakeUps } from './delivery-wake-ups.js';
import {
  CLOSE_ABANDONED_ATTEMPTS,
  COUNT_UNCLAIMED_DUE,
  COUNT_UNRECOVERABLE,
  QUEUE_RECOVERY,
  RECORD_MANUAL_ATTEMPT,
  RESERVE_MANUAL_ATTEMPT,
  SETTLE_AFTER_MANUAL_FAILURE,
  SETTLE_AFTER_MANUAL_SUCCESS,
  WHY_NOT_RESERVED,
} from './manual-and-recovery-queries.js';

/**
 * What sends deliveries again beside the engine's loop: a manual redelivery (one MANUAL attempt through the
 * engine), a recovery of an app's FAILED deliveries (queued for the engine), and the 15-second recovery pass
 * that keeps the log truthful after a worker died. Reads a delivery through the log, as any reader does.
 */
export class DeliveryRecovery {
  private readonly wakeUps: DeliveryWakeUps;

  constructor(
    private readonly db: DataSource,
    private readonly pubSub: PostgresPubSub,
    private readonly engine: DeliveryEngine,
    private readonly log: DeliveryLogService,
  ) {
    this.wakeUps = new DeliveryWakeUps(db);
  }

  /** Owner or admin: one immediate attempt; refused, recording nothing, while the app's webhook is disabled. */
  async redeliver(principal: Principal, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.log.get(principal, deliveryId);
    if (!delivery) throw notFound('Delivery');
    if (delivery.payloadText === null) throw webhookErrors.bodyGone();
    await this.attemptNow(deliveryId);
    return (await this.log.get(principal, deliveryId))!;
  }

  /**
   * One immediate MANUAL attempt. Success settles the delivery; failure leaves its status and schedule
   * as they were: a manual redelivery starts no new schedule, so a developer's one try cannot buy six more.
   */
  private async attemptNow(deliveryId: string): Promise<void> {
    const [delivery]: ClaimedDelivery[] = await this.db.query(RESERVE_MANUAL_ATTEMPT, [deliveryId]);
    // Its db_now was read just now: the attempt's start, webhook-timestamp and record follow the database's clock, as a worker's do.
    if (delivery) delivery.local_at = performance.now();
    // Nothing reserved: its endpoint is paused, disabled or deleted, or the body was removed by the hourly retention since it was read.
    if (!delivery) {
      const [why]: { endpoint_state: string | null; body_kept: boolean }[] = await this.db.query(WHY_NOT_RESERVED, [deliveryId]);
      if (!why) throw notFound('Delivery');
      if (why.endpoint_state === null) throw webhookErrors.endpointDeleted();
      if (why.endpoint_state === WebhookEndpointState.DISABLED) throw webhookErrors.webhookDisabled();
      if (why.endpoint_state === WebhookEndpointState.PAUSED) throw webhookErrors.endpointPaused();
      if (!why.body_kept) throw webhookErrors.bodyGone();
      throw webhookErrors.endpointNotEnabled();
    }
    const sent = await this.engine.send(delivery, delivery.attempt_count, AttemptTrigger.MANUAL);
    const { startedAt, response } = sent;
    const [updated]: UpdatedRow[][] = await this.db.transaction(async (manager) => {
      const record = attemptRecord(sent);
      const recordParams = [JSON.stringify([record]), ...recordAttemptsBounds([record])];
      const [{ recorded }]: [{ recorded: number }] = await manager.query(RECORD_MANUAL_ATTEMPT, recordParams);
      // Closed as interrupted meanwhile: its outcome replaces that record, in a statement that sees it.
      if (recorded === 0) await manager.query(RECORD_LATE_OUTCOMES, recordParams);
      const { hourly, minutely, endpointHourly } = rollUp([
        {
          appId: delivery.app_id,
          endpointId: delivery.endpoint_id,
          finishedAt: new Date(startedAt.getTime() + response.durationMs),
          succeeded: response.error === null,
          durationMs: response.durationMs,
        },
      ]);
      await manager.query(ROLL_UP_ALONE, [hourly, minutely, endpointHourly]);
      return manager.query(response.error === null ? SETTLE_AFTER_MANUAL_SUCCESS : SETTLE_AFTER_MANUAL_FAILURE, [deliveryId]);
    });
    // No row: the delivery went away during the attempt, and there is no state left to announce.
    const [row] = updated ?? [];
    if (row) await publishDeliveryUpdates(this.db.manager, this.pubSub, [deliveryUpdate(delivery, row)]);
  }

  /**
   * recoverWebhookDeliveries (the caller has checked who may, and which of the app's endpoints are enabled):
   * every FAILED delivery of the app to `endpointIds` created since `since` is queued for one MANUAL attempt, oldest first. Queued, not sent from here: the engine
   * sends them under the app's concurrency cap, so a recovering receiver is not flooded. Idempotent: a
   * queued delivery is no longer FAILED, so asking again queues only what failed since.
   */
  async recoverFailed(appId: string, since: Date, endpointIds: readonly string[]): Promise<WebhookRecovery> {
    if (since.getTime() > Date.now()) throw badInput('since', 'since must not be in the future');
    const queued: (UpdatedRow & { app_id: string; endpoint_id: string | null; owner_id: string; event_type: string; purchase_id: string; created_at: Date })[] =
      await this.db.query(QUEUE_RECOVERY, [appId, idAtTime(since.getTime()), endpointIds]);
    // After the queueing: what is still FAILED since then and has no body was left out for that reason.
    const [{ skipped }]: [{ skipped: number }] = await this.db.query(COUNT_UNRECOVERABLE, [appId, idAtTime(since.getTime()), endpointIds]);
    if (queued.length > 0) {
      this.wakeUps.notify();
      const updates = queued.map((row) =>
        deliveryUpdate(
          {
            app_id: row.app_id,
            endpoint_id: row.endpoint_id,
            owner_id: row.owner_id,
            event_type: row.event_type,
            purchase_id: row.purchase_id,
            created_at: row.created_at,
          } as ClaimedDelivery,
          row,
        ),
      );
      await publishDeliveryUpdates(this.db.manager, this.pubSub, updates);
    }
    return { appId, since, deliveriesQueued: queued.length, deliveriesSkipped: skipped };
  }

  /**
   * The recovery pass: closes attempts left open by a process that died (their claim or request is
   * long gone) so the log tells the truth, and says whether deliveries are due with no one on them.
   */
  async recover(): Promise<{ closedAttempts: number; dueDeliveries: number }> {
    const [{ closed }]: [{ closed: number }] = await this.db.query(CLOSE_ABANDONED_ATTEMPTS, [this.engine.leaseMs]);
    const [{ due }] = await this.db.query(COUNT_UNCLAIMED_DUE);
    return { closedAttempts: closed, dueDeliveries: due };
  }
}
