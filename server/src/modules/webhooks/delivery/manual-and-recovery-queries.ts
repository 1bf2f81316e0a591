import { sqlLiterals } from '../../../platform/sql-literals.js';
import { AttemptTrigger, WebhookState } from '../webhook.types.js';
import { WebhookEndpointState } from '../endpoints/webhook-endpoint.types.js';
import { DeliveryEvent } from './delivery-lifecycle.js';
import { isOpenSql, transitionSql } from './delivery-lifecycle-sql.js';
import {
  ATTEMPT_MATERIALS,
  ATTEMPT_RECORD_COLUMNS,
  BODY_KEPT,
  CLOSE_AS_INTERRUPTED,
  closeOpenAttempts,
  JOIN_ATTEMPT_MATERIALS,
  RECORD_ATTEMPTS,
  START_ATTEMPTS,
} from './sql-fragments.js';

/**
 * The statements of what moves deliveries beside the engine's loop: a manual attempt (redeliverWebhook, plaza
 * redeliver), a recovery (recoverWebhookDeliveries) and the 15-second recovery pass. Their transitions come from
 * delivery-lifecycle.ts like the engine's.
 */

const MANUAL = sqlLiterals(AttemptTrigger.MANUAL);

/** The endpoint of delivery `alias` is sent to: ENABLED (not paused, not disabled after failure, not deleted); with no endpoint yet, its app's webhook. */
const ENDPOINT_ENABLED = (alias: string) => `CASE WHEN ${alias}.endpoint_id IS NULL
           THEN EXISTS (SELECT 1 FROM apps ap WHERE ap.id = ${alias}.app_id AND ap.webhook_state <> ${sqlLiterals(WebhookState.DISABLED)})
           ELSE EXISTS (SELECT 1 FROM webhook_endpoints ep WHERE ep.id = ${alias}.endpoint_id AND ep.state = ${sqlLiterals(WebhookEndpointState.ENABLED)}) END`;

/**
 * A manual attempt of delivery $1: counts it and records it as started, and returns what sending it
 * needs (no claim: a manual attempt runs beside the schedule, whoever holds the delivery), with the trace its
 * event was recorded in, which the attempt joins as the scheduled ones do, and the database's time, which the
 * attempt is stamped and signed by as theirs are (not the API process's clock).
 */
export const RESERVE_MANUAL_ATTEMPT = `WITH reserved AS (
         UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, updated_at = clock_timestamp()
          -- Nothing to send, and nothing reserved, once its body is gone (WEBHOOK_BODY_RETENTION) or while its
          -- endpoint is paused, disabled or deleted (checked here, not only before: a pause may land in between).
          WHERE id = $1 AND ${BODY_KEPT('webhook_deliveries')} AND ${ENDPOINT_ENABLED('webhook_deliveries')}
         RETURNING id, app_id, endpoint_id, event_id, event_type, purchase_id, attempt_count, scheduled_attempts_done, created_at, status, recovering, trace_parent
       ), started AS (
         ${START_ATTEMPTS(`SELECT id, attempt_count, ${MANUAL}, clock_timestamp() FROM reserved`)}
       )
       SELECT r.id, r.app_id, r.event_id, r.event_type, r.purchase_id, r.attempt_count, r.scheduled_attempts_done, r.created_at, r.status, r.recovering,
              0::float AS wait_ms, '' AS claim_token, clock_timestamp() AS db_now, r.trace_parent, ${ATTEMPT_MATERIALS('r')}
         FROM reserved r
         ${JOIN_ATTEMPT_MATERIALS('r')}`;

/** Why RESERVE_MANUAL_ATTEMPT reserved nothing for delivery $1: its endpoint's state (null once deleted, the app's without one), and whether its body is kept. */
export const WHY_NOT_RESERVED = `SELECT CASE WHEN d.endpoint_id IS NULL THEN a.webhook_state ELSE e.state END AS endpoint_state, ${BODY_KEPT('d')} AS body_kept
         FROM webhook_deliveries d JOIN apps a ON a.id = d.app_id LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.id = $1`;

/**
 * A manual attempt finished: its record ($1, a JSON array of its one row, attempt-results.ts attemptRecord; $2 to $4 as
 * recordAttemptsBounds gives them), as the engine records its own. `recorded` is 0 when its started row had been closed
 * as interrupted meanwhile (the recovery pass found it open past a lease): RECORD_LATE_OUTCOMES then records it.
 */
export const RECORD_MANUAL_ATTEMPT = `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(${ATTEMPT_RECORD_COLUMNS})
       ), ${RECORD_ATTEMPTS('r', { lowest: '$2', highest: '$3', withEarlierAttempts: '$4' })}
       SELECT count(*)::int AS recorded FROM attempts`;

/** After a manual attempt of delivery $1, as the lifecycle says: success settles it; a failure leaves status and schedule as they were. */
const settleAfterManualAttempt = (event: DeliveryEvent) => {
  const { where, set } = transitionSql(event, 'd');
  return `UPDATE webhook_deliveries d
            SET ${[set, 'updated_at = clock_timestamp()'].filter(Boolean).join(', ')}
          WHERE d.id = $1 AND ${where}
         RETURNING d.id, d.status, d.attempt_count, d.next_attempt_at, d.updated_at`;
};
export const SETTLE_AFTER_MANUAL_SUCCESS = settleAfterManualAttempt(DeliveryEvent.MANUAL_ATTEMPT_SUCCEEDED);
export const SETTLE_AFTER_MANUAL_FAILURE = settleAfterManualAttempt(DeliveryEvent.MANUAL_ATTEMPT_FAILED);

/** Open longer than $1 ms on a delivery no live claim holds: a process died under attempt `alias`. */
const ABANDONED = (alias: string) => `${alias}.started_at < clock_timestamp() - $1 * interval '1 millisecond'
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = ${alias}.delivery_id AND d.claim_expires_at > clock_timestamp())`;

/**
 * Closes the abandoned attempts as interrupted, and says how many (`closed`): this release's, in flight in
 * webhook_open_attempts, and the previous release's, started in webhook_attempts itself (CLOSE_AS_INTERRUPTED),
 * found through idx_webhook_attempts_open, which holds only those (concurrent-indexes.ts).
 */
export const CLOSE_ABANDONED_ATTEMPTS = `WITH ${closeOpenAttempts('abandoned', ABANDONED('o'))}, abandoned_before AS (
         UPDATE webhook_attempts a SET ${CLOSE_AS_INTERRUPTED}
          WHERE NOT a.finished AND ${ABANDONED('a')}
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM abandoned_recorded)::int + (SELECT count(*) FROM abandoned_before)::int AS closed`;

/** How many deliveries are due with no live claim on them (counting stops at 1,000). */
export const COUNT_UNCLAIMED_DUE = `SELECT count(*)::int AS due FROM (
         SELECT 1 FROM webhook_deliveries
          WHERE ${isOpenSql('')} AND next_attempt_at <= clock_timestamp()
            AND (claim_expires_at IS NULL OR claim_expires_at < clock_timestamp())
          LIMIT 1000) due_now`;

/** Recovery queues FAILED and HELD deliveries (both stored FAILED: `where` reads the status alone, which the app's status index serves). */
const QUEUE_FOR_RECOVERY = transitionSql(DeliveryEvent.RECOVERY_QUEUED, 'd');

/** Delivery `alias` goes to one of the endpoints $3 (the enabled ones recovery sends to). */
const TO_ENDPOINTS = (alias: string) => `${alias}.endpoint_id = ANY($3::text[])`;

/**
 * recoverWebhookDeliveries: the FAILED deliveries of app $1 with ids from $2 (created since then) to the
 * endpoints $3 are queued for one MANUAL attempt each (RECOVERY_QUEUED), due at their creation time so the
 * engine's time order sends the oldest first. RETRYING while queued: no longer FAILED, so a second call skips them.
 */
export const QUEUE_RECOVERY = `WITH queued AS (
         UPDATE webhook_deliveries d
            SET ${QUEUE_FOR_RECOVERY.set}, updated_at = clock_timestamp()
          -- One whose body is gone cannot be sent: it stays FAILED (COUNT_UNRECOVERABLE counts it).
          WHERE d.app_id = $1 AND ${QUEUE_FOR_RECOVERY.where} AND d.id >= $2 AND ${TO_ENDPOINTS('d')} AND ${BODY_KEPT('d')}
         RETURNING d.id, d.app_id, d.endpoint_id, d.event_type, d.purchase_id, d.status, d.attempt_count, d.next_attempt_at, d.created_at, d.updated_at
       )
       SELECT q.*, a.owner_id FROM queued q JOIN apps a ON a.id = q.app_id ORDER BY q.id`;

/** The FAILED deliveries of app $1 with ids from $2 to the endpoints $3 that recovery cannot send: their bodies passed WEBHOOK_BODY_RETENTION. */
export const COUNT_UNRECOVERABLE = `SELECT count(*)::int AS skipped FROM webhook_deliveries d
        WHERE d.app_id = $1 AND ${QUEUE_FOR_RECOVERY.where} AND d.id >= $2 AND ${TO_ENDPOINTS('d')} AND NOT ${BODY_KEPT('d')}`;
