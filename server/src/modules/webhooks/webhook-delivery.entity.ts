import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { DeliveryAttempt } from './delivery-attempt.entity.js';
import { DeliveryStatus, EVENT_TYPE_BY_WIRE_NAME, WebhookEventType } from './webhook.types.js';

/** One event for one endpoint of an app: its status and when the next attempt is due. */
// simpleResolvers: its @Field properties are read inline by the compiled executor (no middleware or auth on them);
// the derived fields (event, attempts...) keep their field resolvers. 160 resolver calls less per page of 20.
@ObjectType({ description: 'One event for one endpoint of an app: the signed body, its status and every attempt', simpleResolvers: true })
@Entity('webhook_deliveries')
// The engine's work queue: open deliveries by due time, and per endpoint by due time (to step over a
// saturated endpoint's backlog instead of walking it). The same rows (a settled delivery has no next
// attempt), under a predicate the per-endpoint statements imply and the due index's does not, so that the
// planner cannot answer them by walking the due index in time order: the walk the second one avoids.
@Index('idx_webhook_deliveries_due', ['nextAttemptAt'], { where: `status IN ('PENDING', 'RETRYING')` })
@Index('idx_webhook_deliveries_endpoint_queue', ['endpointId', 'nextAttemptAt'], { where: 'next_attempt_at IS NOT NULL' })
// An endpoint's held deliveries, counted for its health: few rows, only while something is held.
@Index('idx_webhook_deliveries_endpoint_held', ['endpointId'], { where: 'held_reason IS NOT NULL' })
// (The release before endpoints claims by a per-app queue index: kept on an upgraded database while its workers may
// run beside this one's, then removed by `pnpm migrate:contract`; platform/migrations/contract-steps.ts.)
// The Webhook Logs: newest first per app and status (a few apps' whole log merges their statuses' ranges:
// delivery-log.service.ts logPageStatement). (An index on app and id alone, which the previous release reads one
// app's log by, is kept on an upgraded database until `pnpm migrate:contract`.)
@Index('idx_webhook_deliveries_app_status', ['appId', 'status', 'id'])
// By purchase: a hash index, built as platform/migrations/concurrent-indexes.ts says. TypeORM cannot say USING hash
// (it would have the index made again as a btree), so it is told to leave this one as it finds it. The btree on
// (purchase_id, id) it replaces is kept on an upgraded database until `pnpm migrate:contract`.
@Index('idx_webhook_deliveries_purchase_hash', { synchronize: false })
export class WebhookDelivery {
  /** `dlv_` + ULID; stable across retries; sent as X-Platform-Delivery and webhook-id. */
  @Field(() => ID, { description: 'dlv_<ULID>; stable across retries; sent as X-Platform-Delivery and webhook-id' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', name: 'event_id' })
  eventId: string;

  @Field(() => ID, { description: 'The app whose webhook URL it goes to (app_<ULID>)' })
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  /**
   * The endpoint it goes to (ep_<ULID>), kept after the endpoint is deleted. Null only in the moment between
   * migration 1796000028000 and its backfill for deliveries recorded before endpoints (a trigger fills it for any recorded since).
   */
  @Field(() => ID, { description: 'The endpoint it goes to (ep_<ULID>); kept after the endpoint is deleted (endpoint is null then)' })
  @Column({ type: 'text', name: 'endpoint_id', nullable: true })
  endpointId: string;

  /** Wire name, e.g. app.purchased; the `event` and `eventName` fields derive from it. */
  @Column({ type: 'text', name: 'event_type' })
  eventType: string;

  /** From eventType (a getter on the prototype, declared as a field below the class). */
  declare readonly event: WebhookEventType;
  /** eventType, as the API names it. */
  declare readonly eventName: string;

  @Field({ description: 'The purchase_id of the event (APP-<ms>-<suffix>); with the event it names one business event' })
  @Column({ type: 'text', name: 'purchase_id' })
  purchaseId: string;

  @Field(() => DeliveryStatus, { description: 'PENDING, RETRYING, SUCCEEDED or FAILED' })
  @Column({ type: 'text' })
  status: DeliveryStatus;

  /** Every attempt made, scheduled, manual or interrupted. */
  @Field(() => Int, { description: 'Attempts made so far, scheduled and manual' })
  @Column({ type: 'integer', name: 'attempt_count', default: 0 })
  attemptCount: number;

  /** Scheduled attempts that finished; the retry schedule is read at this position. */
  @Column({ type: 'integer', name: 'scheduled_attempts_done', default: 0 })
  scheduledAttemptsDone: number;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null unless PENDING or RETRYING' })
  @Column({ type: 'timestamptz', name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  /** Which run of the delivery job holds this delivery, and until when; an expired claim is free again. */
  @Column({ type: 'text', name: 'claim_token', nullable: true })
  claimToken: string | null;

  @Column({ type: 'timestamptz', name: 'claim_expires_at', nullable: true })
  claimExpiresAt: Date | null;

  @Field({ description: 'When the event happened and the delivery was recorded' })
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field({ description: 'When its status or attempts last changed' })
  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;

  /** Why it was recorded without being sent (its endpoint was paused or disabled); cleared when recovery queues it. */
  @Field(() => String, {
    nullable: true,
    description: 'Why Plaza recorded it without sending it (its endpoint was paused, or disabled after sustained failure); null for deliveries sent as usual',
  })
  @Column({ type: 'text', name: 'held_reason', nullable: true })
  heldReason: string | null;

  /** Queued by recoverWebhookDeliveries: its next attempt is one MANUAL attempt that starts no schedule. */
  @Column({ type: 'boolean', default: false })
  recovering: boolean;

  /** The W3C traceparent of the span that recorded it, which its attempts' spans continue; null when not traced. Never in the API. */
  @Column({ type: 'text', name: 'trace_parent', nullable: true })
  traceParent: string | null;

  /** Loaded with the event when a query asks for it; null when the body is gone (WEBHOOK_BODY_RETENTION). */
  payloadText?: string | null;
  attemptList?: DeliveryAttempt[];
}

/*
 * `event` and `eventName` derive from eventType. Declared to type-graphql as plain fields and read through
 * prototype getters, so the compiled executor reads them inline like the other properties: a decorated
 * getter or a field resolver costs a resolver call each (40 per page of 20 deliveries).
 */
Object.defineProperties(WebhookDelivery.prototype, {
  event: {
    get(this: WebhookDelivery): WebhookEventType {
      const event = EVENT_TYPE_BY_WIRE_NAME[this.eventType];
      if (event === undefined) throw new Error(`delivery ${this.id} has an unknown event type ${this.eventType}`);
      return event;
    },
  },
  eventName: {
    get(this: WebhookDelivery): string {
      return this.eventType;
    },
  },
});
Field(() => WebhookEventType, { description: 'What happened; eventName is its wire value' })(WebhookDelivery.prototype, 'event');
Field(() => String, { description: 'The wire value, e.g. "app.purchased"' })(WebhookDelivery.prototype, 'eventName');
