import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { DataSource } from 'typeorm';
import { sqlLiterals } from '../../../platform/sql-literals.js';
import { DeliveryStatus } from '../webhook.types.js';

/** Counting stops here: a backlog's exact size past it says nothing more at a glance, and the count stays cheap. */
export const HEALTH_COUNT_CAP = 10_000;

/** One endpoint's health at a glance: its run of failures, its last day's attempts, what waits to be sent to it. */
@ObjectType('WebhookEndpointHealth', {
  description: 'One endpoint’s health at a glance: its current run of failures, its attempts over the last 24 hours, and its deliveries not yet settled',
})
export class WebhookEndpointHealthView {
  @Field(() => Date, { nullable: true, description: 'The first failed attempt with no success since; null while its deliveries succeed' })
  failingSince: Date | null;

  @Field(() => Date, { nullable: true, description: 'When its latest failed attempt started; kept after it recovers' })
  lastFailureAt: Date | null;

  @Field(() => String, {
    nullable: true,
    description: 'How its latest failed attempt failed, as its failure notifications say it (e.g. "HTTP 503", or why no answer came); null before any failure',
  })
  lastError: string | null;

  @Field(() => Int, { description: 'Deliveries that gave up (every scheduled attempt failed) during the current run of failures; 0 while it succeeds' })
  failedDeliveries: number;

  @Field(() => Int, { description: 'Attempts answered 2xx over the last 24 hours (the 24 hourly buckets of webhookDeliveryStats LAST_24_HOURS)' })
  attemptsSucceeded: number;

  @Field(() => Int, { description: 'Attempts that failed (any other answer, a timeout, a refused connection) over the same 24 hours' })
  attemptsFailed: number;

  @Field(() => Float, { nullable: true, description: 'attemptsSucceeded / (attemptsSucceeded + attemptsFailed), 0..1; null when there were no attempts' })
  successRate: number | null;

  @Field(() => Int, { description: `Deliveries PENDING or RETRYING: to be sent, or being sent (counted up to ${HEALTH_COUNT_CAP.toLocaleString('en')})` })
  openDeliveries: number;

  @Field(() => Int, {
    description: `Deliveries recorded while it was paused or disabled and not sent (heldReason set), waiting for recoverWebhookDeliveries (counted up to ${HEALTH_COUNT_CAP.toLocaleString('en')})`,
  })
  heldDeliveries: number;

  @Field(() => Date, { nullable: true, description: 'When its latest attempt with an outcome started; null when none was made in the last 8 days' })
  lastAttemptAt: Date | null;
}

const OPEN = sqlLiterals(DeliveryStatus.PENDING, DeliveryStatus.RETRYING);

/**
 * The health of the endpoints $1, in one statement for a page of them:
 * the run of failures the result write keeps (webhook_endpoint_health), the last 24 hourly buckets of
 * webhook_endpoint_hourly (its primary key), and the open and held deliveries through the per-endpoint queue
 * index and the held index, each count stopping at HEALTH_COUNT_CAP.
 */
const HEALTH_OF_ENDPOINTS = `SELECT e.id, h.failing_since, h.last_failure_at, h.last_error, COALESCE(h.failed_deliveries, 0) AS failed_deliveries,
         r.succeeded, r.failed, r.last_attempt_at, o.open, held.held
    FROM webhook_endpoints e
    LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = e.id
   CROSS JOIN LATERAL (
     SELECT COALESCE(sum(x.succeeded) FILTER (WHERE x.hour >= date_trunc('hour', now(), 'UTC') - interval '23 hours'), 0)::int AS succeeded,
            COALESCE(sum(x.failed) FILTER (WHERE x.hour >= date_trunc('hour', now(), 'UTC') - interval '23 hours'), 0)::int AS failed,
            max(x.last_attempt_at) AS last_attempt_at
       FROM webhook_endpoint_hourly x WHERE x.endpoint_id = e.id
   ) r
   CROSS JOIN LATERAL (
     SELECT count(*)::int AS open FROM (
       SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.next_attempt_at IS NOT NULL AND d.status IN (${OPEN}) LIMIT ${HEALTH_COUNT_CAP}
     ) q
   ) o
   CROSS JOIN LATERAL (
     SELECT count(*)::int AS held FROM (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.held_reason IS NOT NULL LIMIT ${HEALTH_COUNT_CAP}) q
   ) held
   WHERE e.id = ANY($1::text[])`;

/** The health of endpoints `ids` that exist, by id. The caller decides who sees it. */
export async function healthOfEndpoints(db: DataSource, ids: readonly string[]): Promise<Map<string, WebhookEndpointHealthView>> {
  if (ids.length === 0) return new Map();
  const rows: {
    id: string;
    failing_since: Date | null;
    last_failure_at: Date | null;
    last_error: string | null;
    failed_deliveries: number;
    succeeded: number;
    failed: number;
    last_attempt_at: Date | null;
    open: number;
    held: number;
  }[] = await db.query(HEALTH_OF_ENDPOINTS, [ids]);
  return new Map(
    rows.map((row) => [
      row.id,
      Object.assign(new WebhookEndpointHealthView(), {
        failingSince: row.failing_since,
        lastFailureAt: row.last_failure_at,
        lastError: row.last_error,
        failedDeliveries: row.failed_deliveries,
        attemptsSucceeded: row.succeeded,
        attemptsFailed: row.failed,
        successRate: row.succeeded + row.failed > 0 ? row.succeeded / (row.succeeded + row.failed) : null,
        openDeliveries: row.open,
        heldDeliveries: row.held,
        lastAttemptAt: row.last_attempt_at,
      }),
    ]),
  );
}
