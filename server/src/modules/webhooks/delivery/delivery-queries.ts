import { sqlLiterals } from '../../../platform/sql-literals.js';
import { AttemptTrigger, DeliveryStatus } from '../webhook.types.js';
import { WebhookEndpointState } from '../endpoints/webhook-endpoint.types.js';
import { SETTLED_STATUSES } from './delivery-lifecycle.js';
import { attemptTriggerSql, isOpenSql } from './delivery-lifecycle-sql.js';
import { ENDPOINT_HEALTH } from './endpoint-health-sql.js';
import { ROLL_UP } from './attempt-rollup.js';
import {
  ATTEMPT_MATERIALS,
  ATTEMPT_RECORD_COLUMNS,
  CLOSE_AS_INTERRUPTED,
  closeOpenAttempts,
  JOIN_ATTEMPT_MATERIALS,
  openAttemptRows,
  RECORD_ATTEMPTS,
  START_ATTEMPTS,
} from './sql-fragments.js';

/**
 * The delivery engine's statements (claim, next due, result write, hand back), built once at load from the
 * constants the code uses (DeliveryStatus, AttemptTrigger, the lifecycle's tables), so a status or trigger is
 * spelled in one place. The loop that runs them is delivery-engine.ts; the results' writer attempt-results.ts.
 * Beside them: endpoint-health-sql.ts (the health rule the result write keeps), manual-and-recovery-queries.ts,
 * log-queries.ts (the Webhook Logs' reads) and sql-fragments.ts (what they share).
 */

const SETTLED = sqlLiterals(...SETTLED_STATUSES);
const SCHEDULED = sqlLiterals(AttemptTrigger.SCHEDULED);

/** What sending a claimed delivery needs, as one claim (or the manual attempt's reservation) returns it. */
export interface ClaimedDelivery {
  id: string;
  claim_token: string;
  app_id: string;
  owner_id: string;
  event_type: string;
  purchase_id: string;
  attempt_count: number;
  scheduled_attempts_done: number;
  created_at: Date;
  /** With `recovering`, its state when claimed (delivery-lifecycle.ts stateOf): the attempt's trigger and what its end does. */
  status: DeliveryStatus;
  /** Queued by recoverWebhookDeliveries: this attempt is MANUAL, and a failure leaves it FAILED (no schedule). */
  recovering: boolean;
  /** Its endpoint (null only while a migration's backfill runs). */
  endpoint_id: string | null;
  /** Its endpoint's state when claimed (WebhookEndpointState): a paused or disabled endpoint's delivery is held, not sent; null once the endpoint is deleted. */
  webhook_state: string | null;
  /** Its endpoint's pace: at most this many requests in any second; null for none. */
  rate_limit_per_second: number | null;
  /** Milliseconds from the claim until the delivery is due (claimed ahead); 0 when already due. */
  wait_ms: number;
  /**
   * The database's clock as the claim (or the result write that kept it) ran, and performance.now() when the row reached
   * this worker: together the database's time now (databaseNow), which an attempt's start, its webhook-timestamp and
   * its retry's due time are read off, so a worker whose own clock is wrong schedules and signs nothing wrong.
   */
  db_now?: Date;
  local_at?: number;
  /**
   * Read by key beside the claim, never joined, so a delivery whose event is gone is still claimed and
   * its attempt closed as not sent, not left claimed; null then (WEBHOOK_BODY_RETENTION removes only
   * settled deliveries' bodies, so only a recovery racing the hourly prune can meet one).
   */
  payload: string | null;
  webhook_url: string | null;
  key_id: string;
  ciphertext: Buffer;
  /** The replaced secret while a rotation's overlap ran at the claim; null otherwise. */
  previous_key_id: string | null;
  previous_ciphertext: Buffer | null;
  /** When it stops signing: compared with the attempt's own start, so an overlap ends on time without a job. */
  previous_valid_until: Date | null;
  /** The traceparent stored when its event was recorded, which its attempt's span continues (delivery-tracing.ts); null when not traced, absent from a manual attempt's reservation. */
  trace_parent?: string | null;
}

/**
 * The database's time now, as `delivery`'s claim told it plus the time measured here since (a monotonic clock: a
 * jump of the wall clock changes nothing). A row without it (a manual attempt's reservation) falls back on this
 * process's clock.
 */
export function databaseNow(delivery: Pick<ClaimedDelivery, 'db_now' | 'local_at'>): Date {
  if (!delivery.db_now || delivery.local_at === undefined) return new Date();
  return new Date(delivery.db_now.getTime() + (performance.now() - delivery.local_at));
}
/** Claimed as its endpoint was paused or disabled (or, with no endpoint yet, its app's webhook disabled): held, not sent. */
export const isHeld = (delivery: Pick<ClaimedDelivery, 'webhook_state'>): boolean =>
  delivery.webhook_state === WebhookEndpointState.PAUSED || delivery.webhook_state === WebhookEndpointState.DISABLED;

/** The destination a delivery queues for (its endpoint; its app while a migration's backfill has not reached it): what slots and connection pools are kept per. */
export const queueOf = (delivery: Pick<ClaimedDelivery, 'endpoint_id' | 'app_id'>): string => delivery.endpoint_id ?? delivery.app_id;

/** The delivery's row as an UPDATE ... RETURNING gives it back. */
export interface UpdatedRow {
  id: string;
  /** Still claimed by this worker: its retry is due within claimAheadMs. */
  keep?: boolean;
  status: DeliveryStatus;
  /** WRITE_RESULTS: with `status`, the state it was moved to. */
  recovering?: boolean;
  attempt_count: number;
  next_attempt_at: Date | null;
  updated_at: Date;
  /** WRITE_RESULTS: a run of failures got a FAILED delivery, or ended: the health sweep has something to say. */
  health_changed?: boolean;
}

/** The deliveries still to be delivered, as the due index (next_attempt_at) knows them. */
const QUEUED = isOpenSql('');
/**
 * The same rows as the per-endpoint queue index (endpoint_id, next_attempt_at) knows them: a settled delivery has
 * no next attempt. Written apart from QUEUED so that only that index can serve the per-endpoint statements.
 */
const QUEUED_BY_ENDPOINT = (alias: string) => `${alias}.next_attempt_at IS NOT NULL AND ${alias}.status NOT IN (${SETTLED})`;

/** Claimable now (or within $7 ms, claims ahead): due, and not held by a live claim. */
const CLAIMABLE = (alias: string) => `${alias}.next_attempt_at <= clock_timestamp() + $7 * interval '1 millisecond'
            AND (${alias}.claim_expires_at IS NULL OR ${alias}.claim_expires_at < clock_timestamp())`;

/**
 * Claimable deliveries of endpoints not saturated here ($3), from the due index in time order: stepping over
 * the in-flight rows and the saturated endpoints' due backlog. `gate` is a condition the whole walk depends
 * on ('' for none), so a statement can hold this walk as the branch it does not take.
 */
const dueInTimeOrder = (gate: string) => `SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
          WHERE ${gate}${QUEUED} AND ${CLAIMABLE('d')}
            AND NOT COALESCE(d.endpoint_id = ANY($3::text[]), false)
          ORDER BY d.next_attempt_at
          LIMIT $2 * 4`;

/** While no endpoint is saturated here: time order, where only in-flight rows are stepped over. */
const CANDIDATES_IN_TIME_ORDER = `candidates AS (
         ${dueInTimeOrder('')}
       )`;

/**
 * Up to this many endpoints with queued deliveries, the claim looks endpoint by endpoint while some endpoint is saturated;
 * beyond it, in time order. Measured with one saturated app (when the cap was per app): endpoint by endpoint costs about 8 µs per endpoint with
 * queued work (had it no limit: 1,000 endpoints 9 ms a claim, 10,000 endpoints 79 ms), in time order about
 * 0.2 µs per row of the saturated endpoints' due backlog (50,000 rows: 12 ms). With a 50,000-row backlog:
 * 2 ms endpoint by endpoint with 2 endpoints, 4.5 ms with 100; past the limit, time order plus about 1 ms for the
 * scan that counted the endpoints.
 */
const PER_ENDPOINT_MAX_ENDPOINTS = 200;

/**
 * The endpoints with queued deliveries, one index probe each (a loose scan of the per-endpoint queue index),
 * stopping one past PER_ENDPOINT_MAX_ENDPOINTS; `per_endpoint` says whether they are few enough to look endpoint by endpoint.
 * Shared by the claim and the next-due question while some endpoint is saturated here.
 */
const ENDPOINTS_WITH_QUEUED_WORK = `endpoints_with_work AS (
         -- The index's own predicate only, so each step reads the index alone; the status is checked per endpoint below.
         (SELECT q.endpoint_id, 1 AS nth FROM webhook_deliveries q WHERE q.next_attempt_at IS NOT NULL ORDER BY q.endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT q.endpoint_id FROM webhook_deliveries q WHERE q.next_attempt_at IS NOT NULL AND q.endpoint_id > w.endpoint_id ORDER BY q.endpoint_id LIMIT 1), w.nth + 1
           FROM endpoints_with_work w WHERE w.endpoint_id IS NOT NULL AND w.nth <= ${PER_ENDPOINT_MAX_ENDPOINTS}
       ), per_endpoint AS (
         SELECT count(*) <= ${PER_ENDPOINT_MAX_ENDPOINTS} AS chosen FROM endpoints_with_work WHERE endpoint_id IS NOT NULL
       ), open_endpoints AS (
         SELECT endpoint_id FROM endpoints_with_work WHERE endpoint_id IS NOT NULL AND NOT (endpoint_id = ANY($3::text[]))
       )`;

/**
 * While some endpoint is saturated here ($3): per endpoint that is not, its earliest claimable deliveries, up to
 * its free slots. In time order the scan would step over every due delivery of the saturated endpoints,
 * and a dead endpoint's backlog (tens of thousands) made each claim cost tens of milliseconds for all.
 * With more endpoints than PER_ENDPOINT_MAX_ENDPOINTS holding queued work, time order is the cheaper walk again: the
 * branch not chosen is not run (its condition is a one-time filter).
 */
const CANDIDATES_PER_OPEN_ENDPOINT = `${ENDPOINTS_WITH_QUEUED_WORK}, candidates AS (
         (SELECT c.id, c.endpoint_id, c.next_attempt_at FROM open_endpoints o
           CROSS JOIN LATERAL (
             SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.endpoint_id = o.endpoint_id AND ${QUEUED_BY_ENDPOINT('d')} AND ${CLAIMABLE('d')}
              ORDER BY d.next_attempt_at
              LIMIT GREATEST(0, $6::int - COALESCE(($5::jsonb ->> o.endpoint_id)::int, 0))
           ) c
          WHERE (SELECT chosen FROM per_endpoint)
          ORDER BY c.next_attempt_at
          LIMIT $2 * 4)
         UNION ALL
         (${dueInTimeOrder('NOT (SELECT chosen FROM per_endpoint) AND ')})
       )`;

/**
 * The pace (rateLimitPerSecond: at most N requests in any second): each paced endpoint's claimed deliveries get
 * consecutive send times 1/N s apart, from its next free slot (pace_next_at) or as far ahead as the claim looks ($7), and the endpoint's next free
 * slot moves past them. Booked on the endpoint's row in the claim itself, so that workers claiming at once queue on
 * that row and each books after the other (the UPDATE re-reads pace_next_at once the other's commit releases it).
 * Used by the claim (claimed); `slots` gives each paced delivery its send time, which the worker waits for.
 *
 * Another worker's claim books the same endpoints at once: the rows are locked first, in one pass in key order
 * (pace_locked), as the result write locks its health rows. Locked by the UPDATE as its join met them (the order
 * of a hash of the claimed endpoints), one claim held an endpoint the other waited for and the other way round:
 * PostgreSQL aborted one claim (40P01). NO KEY, as the UPDATE itself locks: an event recorded meanwhile for the
 * endpoint (its foreign key's share lock) does not wait for the claim.
 */
const BOOK_PACED_SLOTS = `paced AS (
         SELECT endpoint_id, count(*)::int AS n FROM claimed WHERE endpoint_id IS NOT NULL GROUP BY endpoint_id
       ), pace_locked AS (
         -- The LockRows step runs above the sort: the rows are locked in key order.
         SELECT e.id FROM paced p JOIN webhook_endpoints e ON e.id = p.endpoint_id
          WHERE e.rate_limit_per_second IS NOT NULL
          ORDER BY e.id
            FOR NO KEY UPDATE OF e
       ), pace_lock_taken AS MATERIALIZED (
         -- Read once, as the UPDATE's one-time condition: it changes no row before all are locked.
         SELECT count(*) AS n FROM pace_locked
       ), booked AS (
         UPDATE webhook_endpoints e
            SET pace_next_at = GREATEST(clock_timestamp() + $7 * interval '1 millisecond', COALESCE(e.pace_next_at, '-infinity')) + p.n * (interval '1 second' / e.rate_limit_per_second)
           FROM paced p
          WHERE e.id = p.endpoint_id AND e.rate_limit_per_second IS NOT NULL AND (SELECT n FROM pace_lock_taken) >= 0
         RETURNING e.id, e.pace_next_at - p.n * (interval '1 second' / e.rate_limit_per_second) AS first_slot, interval '1 second' / e.rate_limit_per_second AS spacing
       ), slots AS (
         SELECT c.id, b.first_slot + (row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) - 1) * b.spacing AS send_at
           FROM claimed c JOIN booked b ON b.id = c.endpoint_id
       )`;

/**
 * Claims up to $2 deliveries due within $7 ms, at most $6 in flight per endpoint (in flight now: $5, full
 * endpoints: $3), leased for $4 ms to claim token $1; records each attempt as started and returns what
 * sending it needs. `candidates` is one of the two ways above of finding them.
 */
const claimStatement = (candidates: string) => `WITH RECURSIVE ${candidates}, within_endpoint_slots AS (
         -- No more per endpoint than its free slots here ($5: in flight per endpoint): one claim over a bulk
         -- backlog would otherwise take a whole batch for one destination, and a few hanging
         -- destinations would hold every slot of the worker until they time out.
         -- A paced endpoint (rateLimitPerSecond) gets at most a second's worth per claim: its slots are booked below.
         SELECT id, next_attempt_at FROM (
           SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at) AS nth,
                  LEAST($6::int - COALESCE(($5::jsonb ->> c.endpoint_id)::int, 0), COALESCE(e.rate_limit_per_second, $6::int)) AS free
             FROM candidates c LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id) ranked
          WHERE nth <= free
          ORDER BY next_attempt_at
          LIMIT $2
       ), due AS (
         -- Each row locked through its primary key, driven by the short list above. A queue's
         -- statistics are always stale (a burst of due rows arrives between two ANALYZEs), and with a
         -- join here the planner, expecting a handful of rows, re-ranked every candidate once per
         -- pending delivery: 300 ms for 200 rows instead of a few.
         SELECT d.id, d.taken_over FROM within_endpoint_slots w
           CROSS JOIN LATERAL (
             SELECT d.id, d.claim_token IS NOT NULL AS taken_over FROM webhook_deliveries d
              WHERE d.id = w.id AND ${isOpenSql('d')}
                AND (d.claim_expires_at IS NULL OR d.claim_expires_at < clock_timestamp())
              FOR UPDATE SKIP LOCKED
           ) d
       ), ${closeOpenAttempts('interrupted', `o.ctid = ANY (${openAttemptRows('SELECT id AS delivery_id FROM due WHERE taken_over', false)}) AND o.trigger = ${SCHEDULED}`)}, interrupted_before AS (
         -- A scheduled attempt still open on a delivery whose claim expired (a claim token left behind) belongs to a
         -- worker that died: closed above, or here where the previous release started it (CLOSE_AS_INTERRUPTED).
         -- Rows reached by key (= ANY of those ids, usually none), never by a join: the planner,
         -- costing a join against a few hundred ids, chose to read the whole table once it held some tens of thousands of rows.
         -- Not pruned by the range of those ids (WITHIN_IDS_OF) either: the claim changes rows others change (recordAttemptsBounds).
         UPDATE webhook_attempts a
            SET ${CLOSE_AS_INTERRUPTED}
          WHERE a.delivery_id = ANY (ARRAY(SELECT id FROM due WHERE taken_over))
            AND a.trigger = ${SCHEDULED} AND NOT a.finished
       ), claimed AS (
         UPDATE webhook_deliveries d
            SET claim_token = $1, claim_expires_at = clock_timestamp() + $4 * interval '1 millisecond',
                attempt_count = d.attempt_count + 1, updated_at = clock_timestamp()
          WHERE d.id = ANY (ARRAY(SELECT id FROM due))
         RETURNING d.id, d.app_id, d.endpoint_id, d.event_id, d.event_type, d.purchase_id, d.attempt_count, d.scheduled_attempts_done, d.created_at, d.next_attempt_at, d.status, d.recovering,
                   d.trace_parent
       ), started AS (
         -- The trigger its state's attempt has: a delivery queued by recovery gets one MANUAL attempt (delivery-lifecycle.ts ATTEMPT_TRIGGER).
         ${START_ATTEMPTS(`SELECT id, attempt_count, ${attemptTriggerSql('claimed')}, GREATEST(clock_timestamp(), next_attempt_at) FROM claimed`)}
       ), ${BOOK_PACED_SLOTS}
       SELECT c.id, c.app_id, c.event_type, c.purchase_id, c.attempt_count, c.scheduled_attempts_done, c.created_at,
              GREATEST(0, EXTRACT(EPOCH FROM (GREATEST(c.next_attempt_at, paced_slot.send_at) - clock_timestamp())) * 1000)::float AS wait_ms,
              $1::text AS claim_token, c.status, c.recovering, clock_timestamp() AS db_now, c.trace_parent, ${ATTEMPT_MATERIALS('c')}
         FROM claimed c
         LEFT JOIN slots paced_slot ON paced_slot.id = c.id
         ${JOIN_ATTEMPT_MATERIALS('c')}
        -- Sent in this order: oldest due first (a recovery's backlog goes out oldest first).
        ORDER BY c.next_attempt_at, c.id`;

/** The claim while no endpoint is saturated here (exported, as the next three, for the tests that check the plans stay bounded). */
export const CLAIM_DUE_DELIVERIES = claimStatement(CANDIDATES_IN_TIME_ORDER);
export const CLAIM_DUE_DELIVERIES_PAST_SATURATED_ENDPOINTS = claimStatement(CANDIDATES_PER_OPEN_ENDPOINT);

/** Milliseconds until a delivery of an endpoint not in $1 can be claimed (claims ahead: $2 ms early). */
const untilClaimable = (earliest: string) => `GREATEST(0, EXTRACT(EPOCH FROM (${earliest} - clock_timestamp())) * 1000 - $2)::float AS ms`;

/** The earliest unclaimed delivery of an endpoint not in $1, in time order; `gate` as in dueInTimeOrder. */
const nextInTimeOrder = (gate: string) => `SELECT next_attempt_at FROM webhook_deliveries
        WHERE ${gate}${QUEUED} AND (claim_expires_at IS NULL OR claim_expires_at < now())
          AND NOT COALESCE(endpoint_id = ANY($1::text[]), false)
        ORDER BY next_attempt_at LIMIT 1`;

export const NEXT_DUE = `SELECT ${untilClaimable('next_attempt_at')} FROM (${nextInTimeOrder('')}) earliest`;

/** As NEXT_DUE, endpoint by endpoint, so the saturated endpoints' backlogs are stepped over, not walked ($3 in the shared CTEs is $1 here). */
export const NEXT_DUE_PAST_SATURATED_ENDPOINTS = `WITH RECURSIVE ${ENDPOINTS_WITH_QUEUED_WORK.replaceAll('$3', '$1')}, earliest AS (
         (SELECT min(n.next_attempt_at) AS next_attempt_at FROM open_endpoints o
           CROSS JOIN LATERAL (
             SELECT d.next_attempt_at FROM webhook_deliveries d
              WHERE d.endpoint_id = o.endpoint_id AND ${QUEUED_BY_ENDPOINT('d')} AND (d.claim_expires_at IS NULL OR d.claim_expires_at < now())
              ORDER BY d.next_attempt_at LIMIT 1
           ) n
          WHERE (SELECT chosen FROM per_endpoint))
         UNION ALL
         (${nextInTimeOrder('NOT (SELECT chosen FROM per_endpoint) AND ')})
       )
       -- No row when nothing is queued, as from NEXT_DUE (GREATEST would turn an empty minimum into 0).
       SELECT ${untilClaimable('next_attempt_at')} FROM earliest WHERE next_attempt_at IS NOT NULL`;

/**
 * Records a batch of attempts' outcomes ($1, a JSON array of rows; $6 to $8 as recordAttemptsBounds gives them) and adds them to the charts' rollups
 * ($3, $4, $5: rollUp's sums; every attempt written here counts, as it is recorded whoever holds the
 * delivery now), and moves each delivery on, while
 * this run still holds its claim. A row with `keep` stays claimed (leased $2 ms) for its near retry,
 * whose attempt is recorded as started. Returns each delivery moved on, a kept one with the attempts
 * made so far, as after any claim: the next one has not started.
 */
export const WRITE_RESULTS = `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(keep boolean, claim_token text, ${ATTEMPT_RECORD_COLUMNS},
                status text, retry_in_ms int, recovering boolean, held_reason text)
       ), ${ROLL_UP('$3', '$4', '$5')}, ${RECORD_ATTEMPTS('r', { lowest: '$6', highest: '$7', withEarlierAttempts: '$8' })}, moved_on AS (
         UPDATE webhook_deliveries d
            -- As the worker decided (delivery-lifecycle.ts decide), from the state it claimed, which is still the row's while its claim stands.
            -- The next attempt's due time on the database's clock, as every claim reads it (a worker's own clock may be
            -- hours off): r.retry_in_ms from now, the delay left once the time since the attempt ended is taken off.
            SET status = r.status, next_attempt_at = clock_timestamp() + r.retry_in_ms * interval '1 millisecond', recovering = r.recovering, held_reason = r.held_reason,
                -- Only a scheduled attempt moves the schedule on; a recovery's is manual.
                scheduled_attempts_done = d.scheduled_attempts_done + CASE WHEN ${attemptTriggerSql('d')} = ${SCHEDULED} THEN 1 ELSE 0 END,
                claim_token = CASE WHEN r.keep THEN d.claim_token END,
                claim_expires_at = CASE WHEN r.keep THEN clock_timestamp() + $2 * interval '1 millisecond' END,
                attempt_count = d.attempt_count + CASE WHEN r.keep THEN 1 ELSE 0 END,
                updated_at = clock_timestamp()
           FROM r
          -- Only while this run still holds the claim: after a takeover the new holder's outcome stands.
          -- r comes sorted by delivery id (attempt-results.ts): read first by the join, it locks the deliveries in that order.
          -- The delivery's status (d.), not the input's new one (r.status).
          WHERE d.id = r.delivery_id AND d.claim_token = r.claim_token AND ${isOpenSql('d')}
          RETURNING d.id, d.app_id, d.endpoint_id, d.status, d.recovering, d.attempt_count, d.next_attempt_at, d.updated_at, r.keep
       ), kept AS (
         ${START_ATTEMPTS(`SELECT id, attempt_count, ${SCHEDULED}, next_attempt_at FROM moved_on WHERE keep`)}
       ), ${ENDPOINT_HEALTH}
       SELECT id, status, recovering, attempt_count - CASE WHEN keep THEN 1 ELSE 0 END AS attempt_count, next_attempt_at, updated_at, keep,
              (SELECT count(*) FROM (SELECT 1 FROM failing WHERE failed_deliveries > 0 UNION ALL SELECT 1 FROM recovered) changed) > 0 AS health_changed
         FROM moved_on`;

/**
 * Whether a result write ($1, WRITE_RESULTS' rows) committed although its connection was lost before the answer: its
 * attempts are recorded as it records them (a statement writes all of them or none; a takeover's close as interrupted
 * keeps the claim's start, never this run's start and duration).
 */
export const RESULTS_ALREADY_WRITTEN = `SELECT EXISTS (
         SELECT 1 FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id text, number int, started_at timestamptz, duration_ms int)
           JOIN webhook_attempts a ON a.delivery_id = r.delivery_id AND a.number = r.number
          WHERE a.finished AND a.started_at = r.started_at AND a.duration_ms = r.duration_ms
       ) AS written`;

/**
 * Renews for $2 ms the claims in $1 (a JSON array of id, claim_token) that this run still holds: its deliveries whose
 * results are not written yet. A claim that was taken over (expired, claimed again) is not the token's any more.
 */
export const RENEW_CLAIMS = `UPDATE webhook_deliveries d SET claim_expires_at = clock_timestamp() + $2 * interval '1 millisecond'
         FROM jsonb_to_recordset($1::jsonb) AS held(id text, claim_token text)
        WHERE d.id = held.id AND d.claim_token = held.claim_token`;

/**
 * Shutdown past its deadline: releases the claims in $1 (a JSON array of id, claim_token, number) that
 * this run still holds and closes their attempts as interrupted. This release starts every attempt in
 * webhook_open_attempts, so that is where they are closed from; their records are inserted, each routed to its
 * partition by key, never found by a scan pruned while the statement runs (sql-fragments.ts recordAttemptsBounds
 * says what that crashed).
 */
export const HAND_BACK = `WITH held AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, claim_token text, number int)
         ), released AS (
           UPDATE webhook_deliveries d SET claim_token = NULL, claim_expires_at = NULL, updated_at = clock_timestamp()
             FROM held WHERE d.id = held.id AND d.claim_token = held.claim_token
           RETURNING d.id, held.number
         ), ${closeOpenAttempts('closed', `o.ctid = ANY (${openAttemptRows('SELECT id AS delivery_id, number FROM released', true)})`)}
         SELECT count(*)::int AS closed FROM closed_recorded`;
