import { sqlLiterals } from '../../../platform/sql-literals.js';
import { AttemptTrigger, DeliveryStatus, WebhookState } from '../webhook.types.js';
import { DeliveryEvent, SETTLED_STATUSES } from './delivery-lifecycle.js';
import { attemptTriggerSql, isOpenSql, transitionSql } from './delivery-lifecycle-sql.js';
import { ROLL_UP } from './attempt-rollup.js';
import {
  attemptHeaders,
  attemptHeadersFromWorker,
  compactSharedOnce,
  compactSignatureOf,
  expectedForDeliveryOnce,
  expectedOnce,
  headersAsSent,
  keptHeaders,
  sharedHeaders,
  storedShared,
  urlAsSent,
  urlToKeep,
} from './request-headers-sql.js';

/**
 * Every statement of the delivery engine, built once at load from the constants the code uses
 * (DeliveryStatus, AttemptTrigger), so a status or trigger is spelled in one place. The loop that runs
 * them is delivery-engine.ts; the results' writer attempt-results.ts; redeliver and recover the log service.
 */

const SETTLED = sqlLiterals(...SETTLED_STATUSES);
const SCHEDULED = sqlLiterals(AttemptTrigger.SCHEDULED);
const MANUAL = sqlLiterals(AttemptTrigger.MANUAL);
const FAILED = sqlLiterals(DeliveryStatus.FAILED);

/** The delivery `alias` still has its body: WEBHOOK_BODY_RETENTION removes the events of settled deliveries. */
const BODY_KEPT = (alias: string) => `EXISTS (SELECT 1 FROM webhook_events ev WHERE ev.id = ${alias}.event_id)`;

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
  /** The app's WebhookState when claimed: a disabled app's delivery is held, not sent. */
  webhook_state: string;
  /** Milliseconds from the claim until the delivery is due (claimed ahead); 0 when already due. */
  wait_ms: number;
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
}

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

/** The error of an attempt whose worker stopped (or died) before it finished. */
export const INTERRUPTED = 'interrupted: the worker stopped before this attempt finished; the delivery was taken over';

/**
 * `key` lies between the smallest and the largest `column` of `source`: webhook_attempts and
 * webhook_request_headers are partitioned by delivery id (platform/time-partitions.ts), and PostgreSQL
 * prunes partitions by such a range once the subqueries have run, never by `= ANY` of an array it does
 * not know when planning (a CTE's, or a prepared statement's parameter), nor through a join: without
 * it these statements read every partition, a span (a week) each (attempt-partition-plans.test.ts).
 */
const WITHIN_IDS_OF = (key: string, column: string, source: string) => `${key} BETWEEN (SELECT min(${column}) FROM ${source}) AND (SELECT max(${column}) FROM ${source})`;

/** Closes an open attempt `a` as interrupted, with the time it was open as its duration. */
const CLOSE_AS_INTERRUPTED = `finished = true, error = '${INTERRUPTED}',
                duration_ms = GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - a.started_at)) * 1000)::int`;

/** A rotation's overlap still runs for the client secret row `alias`. */
const OVERLAPPING = (alias: string) => `${alias}.previous_valid_until > clock_timestamp()`;

/**
 * What sending a claimed delivery needs besides its row: the body, the current webhook URL and owner,
 * and the sealed secret (with the replaced one while a rotation's overlap runs; an ended overlap's is
 * not fetched). The body is read by key for each row, not joined: joined, the planner read
 * the whole events table for a claim once it held some tens of thousands of rows (see the claim).
 */
const ATTEMPT_MATERIALS = (
  alias: string,
) => `(SELECT ev.payload FROM webhook_events ev WHERE ev.id = ${alias}.event_id) AS payload, a.webhook_url, a.owner_id, s.key_id, s.ciphertext,
              CASE WHEN ${OVERLAPPING('s')} THEN s.previous_key_id END AS previous_key_id,
              CASE WHEN ${OVERLAPPING('s')} THEN s.previous_ciphertext END AS previous_ciphertext,
              CASE WHEN ${OVERLAPPING('s')} THEN s.previous_valid_until END AS previous_valid_until`;

const JOIN_ATTEMPT_MATERIALS = (alias: string) => `JOIN apps a ON a.id = ${alias}.app_id
         JOIN client_secrets s ON s.app_id = ${alias}.app_id`;

/** The deliveries still to be delivered, as the due index (next_attempt_at) knows them. */
const QUEUED = isOpenSql('');
/**
 * The same rows as the per-app queue index (app_id, next_attempt_at) knows them: a settled delivery has
 * no next attempt. Written apart from QUEUED so that only that index can serve the per-app statements.
 */
const QUEUED_BY_APP = (alias: string) => `${alias}.next_attempt_at IS NOT NULL AND ${alias}.status NOT IN (${SETTLED})`;

/** Claimable now (or within $7 ms, claims ahead): due, and not held by a live claim. */
const CLAIMABLE = (alias: string) => `${alias}.next_attempt_at <= clock_timestamp() + $7 * interval '1 millisecond'
            AND (${alias}.claim_expires_at IS NULL OR ${alias}.claim_expires_at < clock_timestamp())`;

/**
 * Claimable deliveries of apps not saturated here ($3), from the due index in time order: stepping over
 * the in-flight rows and the saturated apps' due backlog. `gate` is a condition the whole walk depends
 * on ('' for none), so a statement can hold this walk as the branch it does not take.
 */
const dueInTimeOrder = (gate: string) => `SELECT d.id, d.app_id, d.next_attempt_at FROM webhook_deliveries d
          WHERE ${gate}${QUEUED} AND ${CLAIMABLE('d')}
            AND NOT (d.app_id = ANY($3::text[]))
          ORDER BY d.next_attempt_at
          LIMIT $2 * 4`;

/** While no app is saturated here: time order, where only in-flight rows are stepped over. */
const CANDIDATES_IN_TIME_ORDER = `candidates AS (
         ${dueInTimeOrder('')}
       )`;

/**
 * Up to this many apps with queued deliveries, the claim looks app by app while some app is saturated;
 * beyond it, in time order. Measured with one saturated app: app by app costs about 8 µs per app with
 * queued work (had it no limit: 1,000 apps 9 ms a claim, 10,000 apps 79 ms), in time order about
 * 0.2 µs per row of the saturated apps' due backlog (50,000 rows: 12 ms). With a 50,000-row backlog:
 * 2 ms app by app with 2 apps, 4.5 ms with 100; past the limit, time order plus about 1 ms for the
 * scan that counted the apps.
 */
const PER_APP_MAX_APPS = 200;

/**
 * The apps with queued deliveries, one index probe each (a loose scan of the per-app queue index),
 * stopping one past PER_APP_MAX_APPS; `per_app` says whether they are few enough to look app by app.
 * Shared by the claim and the next-due question while some app is saturated here.
 */
const APPS_WITH_QUEUED_WORK = `apps_with_work AS (
         -- The index's own predicate only, so each step reads the index alone; the status is checked per app below.
         (SELECT q.app_id, 1 AS nth FROM webhook_deliveries q WHERE q.next_attempt_at IS NOT NULL ORDER BY q.app_id LIMIT 1)
         UNION ALL
         SELECT (SELECT q.app_id FROM webhook_deliveries q WHERE q.next_attempt_at IS NOT NULL AND q.app_id > w.app_id ORDER BY q.app_id LIMIT 1), w.nth + 1
           FROM apps_with_work w WHERE w.app_id IS NOT NULL AND w.nth <= ${PER_APP_MAX_APPS}
       ), per_app AS (
         SELECT count(*) <= ${PER_APP_MAX_APPS} AS chosen FROM apps_with_work WHERE app_id IS NOT NULL
       ), open_apps AS (
         SELECT app_id FROM apps_with_work WHERE app_id IS NOT NULL AND NOT (app_id = ANY($3::text[]))
       )`;

/**
 * While some app is saturated here ($3): per app that is not, its earliest claimable deliveries, up to
 * its free slots. In time order the scan would step over every due delivery of the saturated apps,
 * and a dead endpoint's backlog (tens of thousands) made each claim cost tens of milliseconds for all.
 * With more apps than PER_APP_MAX_APPS holding queued work, time order is the cheaper walk again: the
 * branch not chosen is not run (its condition is a one-time filter).
 */
const CANDIDATES_PER_OPEN_APP = `${APPS_WITH_QUEUED_WORK}, candidates AS (
         (SELECT c.id, c.app_id, c.next_attempt_at FROM open_apps o
           CROSS JOIN LATERAL (
             SELECT d.id, d.app_id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.app_id = o.app_id AND ${QUEUED_BY_APP('d')} AND ${CLAIMABLE('d')}
              ORDER BY d.next_attempt_at
              LIMIT GREATEST(0, $6::int - COALESCE(($5::jsonb ->> o.app_id)::int, 0))
           ) c
          WHERE (SELECT chosen FROM per_app)
          ORDER BY c.next_attempt_at
          LIMIT $2 * 4)
         UNION ALL
         (${dueInTimeOrder('NOT (SELECT chosen FROM per_app) AND ')})
       )`;

/**
 * Claims up to $2 deliveries due within $7 ms, at most $6 in flight per app (in flight now: $5, full
 * apps: $3), leased for $4 ms to claim token $1; records each attempt as started and returns what
 * sending it needs. `candidates` is one of the two ways above of finding them.
 */
const claimStatement = (candidates: string) => `WITH RECURSIVE ${candidates}, within_app_slots AS (
         -- No more per app than its free slots here ($5: in flight per app): one claim over a bulk
         -- backlog would otherwise take a whole batch for one destination, and a few hanging
         -- destinations would hold every slot of the worker until they time out.
         SELECT id, next_attempt_at FROM (
           SELECT id, next_attempt_at, row_number() OVER (PARTITION BY app_id ORDER BY next_attempt_at) AS nth,
                  $6::int - COALESCE(($5::jsonb ->> app_id)::int, 0) AS free
             FROM candidates) ranked
          WHERE nth <= free
          ORDER BY next_attempt_at
          LIMIT $2
       ), due AS (
         -- Each row locked through its primary key, driven by the short list above. A queue's
         -- statistics are always stale (a burst of due rows arrives between two ANALYZEs), and with a
         -- join here the planner, expecting a handful of rows, re-ranked every candidate once per
         -- pending delivery: 300 ms for 200 rows instead of a few.
         SELECT d.id FROM within_app_slots w
           CROSS JOIN LATERAL (
             SELECT d.id FROM webhook_deliveries d
              WHERE d.id = w.id AND ${isOpenSql('d')}
                AND (d.claim_expires_at IS NULL OR d.claim_expires_at < clock_timestamp())
              FOR UPDATE SKIP LOCKED
           ) d
       ), interrupted AS (
         -- A scheduled attempt still open on a delivery whose claim expired belongs to a worker that died.
         -- Rows reached by key (= ANY of the locked ids), never by a join: the planner, costing a join
         -- against a few hundred ids, chose to read the whole table once it held some tens of thousands of rows.
         UPDATE webhook_attempts a
            SET ${CLOSE_AS_INTERRUPTED}
          WHERE a.delivery_id = ANY (ARRAY(SELECT id FROM due)) AND ${WITHIN_IDS_OF('a.delivery_id', 'id', 'due')}
            AND a.trigger = ${SCHEDULED} AND NOT a.finished
       ), claimed AS (
         UPDATE webhook_deliveries d
            SET claim_token = $1, claim_expires_at = clock_timestamp() + $4 * interval '1 millisecond',
                attempt_count = d.attempt_count + 1, updated_at = clock_timestamp()
          WHERE d.id = ANY (ARRAY(SELECT id FROM due))
         RETURNING d.id, d.app_id, d.event_id, d.event_type, d.purchase_id, d.attempt_count, d.scheduled_attempts_done, d.created_at, d.next_attempt_at, d.status, d.recovering
       ), started AS (
         -- The trigger its state's attempt has: a delivery queued by recovery gets one MANUAL attempt (delivery-lifecycle.ts ATTEMPT_TRIGGER).
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
         SELECT id, attempt_count, ${attemptTriggerSql('claimed')}, GREATEST(clock_timestamp(), next_attempt_at), false FROM claimed
       )
       SELECT c.id, c.app_id, c.event_type, c.purchase_id, c.attempt_count, c.scheduled_attempts_done, c.created_at,
              GREATEST(0, EXTRACT(EPOCH FROM (c.next_attempt_at - clock_timestamp())) * 1000)::float AS wait_ms,
              $1::text AS claim_token, c.status, c.recovering, a.webhook_state, ${ATTEMPT_MATERIALS('c')}
         FROM claimed c
         ${JOIN_ATTEMPT_MATERIALS('c')}
        -- Sent in this order: oldest due first (a recovery's backlog goes out oldest first).
        ORDER BY c.next_attempt_at, c.id`;

/** The claim while no app is saturated here (exported, as the next three, for the tests that check the plans stay bounded). */
export const CLAIM_DUE_DELIVERIES = claimStatement(CANDIDATES_IN_TIME_ORDER);
export const CLAIM_DUE_DELIVERIES_PAST_SATURATED_APPS = claimStatement(CANDIDATES_PER_OPEN_APP);

/** Milliseconds until a delivery of an app not in $1 can be claimed (claims ahead: $2 ms early). */
const untilClaimable = (earliest: string) => `GREATEST(0, EXTRACT(EPOCH FROM (${earliest} - clock_timestamp())) * 1000 - $2)::float AS ms`;

/** The earliest unclaimed delivery of an app not in $1, in time order; `gate` as in dueInTimeOrder. */
const nextInTimeOrder = (gate: string) => `SELECT next_attempt_at FROM webhook_deliveries
        WHERE ${gate}${QUEUED} AND (claim_expires_at IS NULL OR claim_expires_at < now())
          AND NOT (app_id = ANY($1::text[]))
        ORDER BY next_attempt_at LIMIT 1`;

export const NEXT_DUE = `SELECT ${untilClaimable('next_attempt_at')} FROM (${nextInTimeOrder('')}) earliest`;

/** As NEXT_DUE, app by app, so the saturated apps' backlogs are stepped over, not walked ($3 in the shared CTEs is $1 here). */
export const NEXT_DUE_PAST_SATURATED_APPS = `WITH RECURSIVE ${APPS_WITH_QUEUED_WORK.replaceAll('$3', '$1')}, earliest AS (
         (SELECT min(n.next_attempt_at) AS next_attempt_at FROM open_apps o
           CROSS JOIN LATERAL (
             SELECT d.next_attempt_at FROM webhook_deliveries d
              WHERE d.app_id = o.app_id AND ${QUEUED_BY_APP('d')} AND (d.claim_expires_at IS NULL OR d.claim_expires_at < now())
              ORDER BY d.next_attempt_at LIMIT 1
           ) n
          WHERE (SELECT chosen FROM per_app))
         UNION ALL
         (${nextInTimeOrder('NOT (SELECT chosen FROM per_app) AND ')})
       )
       -- No row when nothing is queued, as from NEXT_DUE (GREATEST would turn an empty minimum into 0).
       SELECT ${untilClaimable('next_attempt_at')} FROM earliest WHERE next_attempt_at IS NOT NULL`;

/**
 * Each app's run of failures, kept up by the result write itself (issue 18: no statement per delivery
 * on the hot path): per app of the batch, one upsert when it has a failure after its last success
 * here, one probe by key when it succeeded (which writes only if a run was open). A run starts at its
 * first failed attempt; a delivery that ends FAILED counts. Used by WRITE_RESULTS (r, moved_on).
 */
const APP_HEALTH = `outcomes AS (
         SELECT app_id, max(started_at) FILTER (WHERE error IS NULL) AS succeeded_at,
                max(started_at) FILTER (WHERE error IS NOT NULL) AS failed_at
           FROM (SELECT m.app_id, m.status, x.started_at, x.error FROM moved_on m JOIN r x ON x.delivery_id = m.id) o
          GROUP BY app_id
       ), failures AS (
         -- The failures after the app's last success in this batch: the run they start or continue.
         SELECT o.app_id, o.succeeded_at, min(x.started_at) AS first_failed_at, max(x.started_at) AS last_failed_at,
                (array_agg(x.error ORDER BY x.started_at DESC))[1] AS last_error,
                count(*) FILTER (WHERE m.status = ${FAILED})::int AS ended_failed
           FROM outcomes o JOIN moved_on m ON m.app_id = o.app_id JOIN r x ON x.delivery_id = m.id
          WHERE x.error IS NOT NULL AND x.started_at > COALESCE(o.succeeded_at, '-infinity')
          GROUP BY o.app_id, o.succeeded_at
       ), failing AS (
         INSERT INTO webhook_health AS h (app_id, failing_since, last_failure_at, last_error, failed_deliveries, recovered_at)
         SELECT app_id, first_failed_at, last_failed_at, last_error, ended_failed, succeeded_at FROM failures ORDER BY app_id
         ON CONFLICT (app_id) DO UPDATE
            -- A success earlier in this batch (recovered_at) ended the run before: this one starts afresh.
            SET failing_since = CASE WHEN EXCLUDED.recovered_at IS NULL THEN COALESCE(h.failing_since, EXCLUDED.failing_since) ELSE EXCLUDED.failing_since END,
                failed_deliveries = CASE WHEN EXCLUDED.recovered_at IS NULL AND h.failing_since IS NOT NULL THEN h.failed_deliveries ELSE 0 END + EXCLUDED.failed_deliveries,
                last_failure_at = GREATEST(h.last_failure_at, EXCLUDED.last_failure_at),
                last_error = EXCLUDED.last_error,
                recovered_at = COALESCE(EXCLUDED.recovered_at, h.recovered_at)
         RETURNING h.failed_deliveries
       ), recovered AS (
         UPDATE webhook_health h SET failing_since = NULL, failed_deliveries = 0, recovered_at = o.succeeded_at
           FROM outcomes o
          WHERE h.app_id = o.app_id AND o.succeeded_at > COALESCE(o.failed_at, '-infinity') AND h.failing_since IS NOT NULL
         RETURNING h.app_id
       )`;

/**
 * WRITE_RESULTS: the stored shared headers of an attempt's delivery (`s` inserted now, or `h` there before)
 * are the worker's split of its own (`r`): compared as stored, two small values, instead of read back.
 */
const SAME_SHARED = `(r.s_delivery_id IS NOT NULL OR h.delivery_id IS NOT NULL)
                AND COALESCE(r.s_headers, h.headers) IS NOT DISTINCT FROM r.shared
                AND COALESCE(r.s_body_signature, h.body_signature) IS NOT DISTINCT FROM decode(r.shared_signature, 'hex')`;

/**
 * Records a batch of attempts' outcomes ($1, a JSON array of rows) and adds them to the charts' rollups
 * ($3, $4: rollUp's sums; every attempt written here counts, as it is recorded whoever holds the
 * delivery now), and moves each delivery on, while
 * this run still holds its claim. A row with `keep` stays claimed (leased $2 ms) for its near retry,
 * whose attempt is recorded as started. Returns each delivery moved on, a kept one with the attempts
 * made so far, as after any claim: the next one has not started.
 */
export const WRITE_RESULTS = `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(keep boolean, delivery_id text, claim_token text, number int, started_at timestamptz, duration_ms int, status_code int,
                error text, excerpt text, url text, headers jsonb, event_type text, shared jsonb, shared_signature text, kept jsonb, signature text,
                status text, next_attempt_at timestamptz, recovering boolean, held_reason text)
       ), ${ROLL_UP('$3', '$4')}, shared AS (
         -- The first attempt sent stores the headers its delivery's attempts share, as the worker split and compacted them (request-headers.ts), and its URL.
         INSERT INTO webhook_request_headers (delivery_id, headers, body_signature, url)
         SELECT DISTINCT ON (delivery_id) delivery_id, shared, decode(shared_signature, 'hex'), url FROM r WHERE headers IS NOT NULL ORDER BY delivery_id, number
         ON CONFLICT (delivery_id) DO NOTHING
         RETURNING delivery_id, headers, body_signature, url
       ), with_shared AS MATERIALIZED (
         -- Each result with the shared row inserted for its delivery just now, if it was (s_*), joined apart from the
         -- attempts (and materialised, not inlined): joined with them, the planner, expecting one attempt row from the partitions, scanned all of
         -- \`shared\` once per result (600 x 600 rows for a batch of 600: most of the statement's time).
         SELECT r.*, s.delivery_id AS s_delivery_id, s.headers AS s_headers, s.body_signature AS s_body_signature, s.url AS s_url
           FROM r LEFT JOIN shared s ON s.delivery_id = r.delivery_id
       ), attempts AS (
         -- The worker's compact signature (r.signature) only where its split stands, as r.kept does. A delivery's row is
         -- either inserted just now (s) or was there before (h), never both: COALESCE takes the one there is, column by column.
         UPDATE webhook_attempts a
            SET started_at = r.started_at, duration_ms = r.duration_ms, status_code = r.status_code, error = r.error,
                response_body_excerpt = r.excerpt, url = ${urlToKeep('r.url', 'r.headers IS NOT NULL', 'COALESCE(r.s_url, h.url)')},
                request_headers = ${attemptHeadersFromWorker('r', SAME_SHARED, storedShared('COALESCE(r.s_headers, h.headers)', 'COALESCE(r.s_body_signature, h.body_signature)', 'r.event_type'))},
                request_signature = CASE WHEN ${SAME_SHARED} THEN decode(r.signature, 'base64') END, finished = true
           FROM with_shared r LEFT JOIN webhook_request_headers h ON h.delivery_id = r.delivery_id
          WHERE a.delivery_id = r.delivery_id AND a.number = r.number AND ${WITHIN_IDS_OF('a.delivery_id', 'delivery_id', 'r')}
       ), moved_on AS (
         UPDATE webhook_deliveries d
            -- As the worker decided (delivery-lifecycle.ts decide), from the state it claimed, which is still the row's while its claim stands.
            SET status = r.status, next_attempt_at = r.next_attempt_at, recovering = r.recovering, held_reason = r.held_reason,
                -- Only a scheduled attempt moves the schedule on; a recovery's is manual.
                scheduled_attempts_done = d.scheduled_attempts_done + CASE WHEN ${attemptTriggerSql('d')} = ${SCHEDULED} THEN 1 ELSE 0 END,
                claim_token = CASE WHEN r.keep THEN d.claim_token END,
                claim_expires_at = CASE WHEN r.keep THEN clock_timestamp() + $2 * interval '1 millisecond' END,
                attempt_count = d.attempt_count + CASE WHEN r.keep THEN 1 ELSE 0 END,
                updated_at = clock_timestamp()
           FROM r
          -- Only while this run still holds the claim: after a takeover the new holder's outcome stands.
          -- The delivery's status (d.), not the input's new one (r.status).
          WHERE d.id = r.delivery_id AND d.claim_token = r.claim_token AND ${isOpenSql('d')}
          RETURNING d.id, d.app_id, d.status, d.recovering, d.attempt_count, d.next_attempt_at, d.updated_at, r.keep
       ), kept AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
         SELECT id, attempt_count, ${SCHEDULED}, next_attempt_at, false FROM moved_on WHERE keep
       ), ${APP_HEALTH}
       SELECT id, status, recovering, attempt_count - CASE WHEN keep THEN 1 ELSE 0 END AS attempt_count, next_attempt_at, updated_at, keep,
              (SELECT count(*) FROM (SELECT 1 FROM failing WHERE failed_deliveries > 0 UNION ALL SELECT 1 FROM recovered) changed) > 0 AS health_changed
         FROM moved_on`;

/**
 * Shutdown past its deadline: releases the claims in $1 (a JSON array of id, claim_token, number) that
 * this run still holds and closes their attempts as interrupted.
 */
export const HAND_BACK = `WITH held AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, claim_token text, number int)
         ), released AS (
           UPDATE webhook_deliveries d SET claim_token = NULL, claim_expires_at = NULL, updated_at = clock_timestamp()
             FROM held WHERE d.id = held.id AND d.claim_token = held.claim_token
           RETURNING d.id, held.number
         )
         UPDATE webhook_attempts a SET ${CLOSE_AS_INTERRUPTED}
           FROM released WHERE a.delivery_id = released.id AND a.number = released.number AND NOT a.finished`;

/** The app of delivery `alias` sends its webhooks: not DISABLED after sustained failures (webhook-health.service.ts). */
const WEBHOOK_ENABLED = (alias: string) => `EXISTS (SELECT 1 FROM apps ap WHERE ap.id = ${alias}.app_id AND ap.webhook_state <> ${sqlLiterals(WebhookState.DISABLED)})`;

/**
 * A manual attempt of delivery $1: counts it and records it as started, and returns what sending it
 * needs (no claim: a manual attempt runs beside the schedule, whoever holds the delivery).
 */
export const RESERVE_MANUAL_ATTEMPT = `WITH reserved AS (
         UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, updated_at = clock_timestamp()
          -- Nothing to send, and nothing reserved, once its body is gone (WEBHOOK_BODY_RETENTION) or while its
          -- app's webhook is disabled (checked here, not only before: a disable may land in between).
          WHERE id = $1 AND ${BODY_KEPT('webhook_deliveries')} AND ${WEBHOOK_ENABLED('webhook_deliveries')}
         RETURNING id, app_id, event_id, event_type, purchase_id, attempt_count, scheduled_attempts_done, created_at, status, recovering
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
         SELECT id, attempt_count, ${MANUAL}, clock_timestamp(), false FROM reserved
       )
       SELECT r.*, 0::float AS wait_ms, '' AS claim_token, a.webhook_state, ${ATTEMPT_MATERIALS('r')}
         FROM reserved r
         ${JOIN_ATTEMPT_MATERIALS('r')}`;

/** Why RESERVE_MANUAL_ATTEMPT reserved nothing for delivery $1: its app's webhook is disabled (else its body is gone). */
export const WEBHOOK_DISABLED_FOR_DELIVERY = `SELECT NOT ${WEBHOOK_ENABLED('d')} AS disabled FROM webhook_deliveries d WHERE d.id = $1`;

/** Attempt $2 of delivery $1 finished: its record ($9: the headers sent, kept as WRITE_RESULTS keeps them). */
export const RECORD_MANUAL_ATTEMPT = `WITH delivery AS (
         SELECT event_type FROM webhook_deliveries WHERE id = $1
       ), shared AS (
         INSERT INTO webhook_request_headers (delivery_id, headers, body_signature, url)
         SELECT $1, c.headers, c.body_signature, $8
           FROM ${expectedForDeliveryOnce('x', '$1::text')}, LATERAL (SELECT ${sharedHeaders('$9::jsonb', 'x.expected')} AS shared OFFSET 0) sh,
                ${compactSharedOnce('c', 'sh.shared', '(SELECT event_type FROM delivery)')}
          WHERE $9::jsonb IS NOT NULL
         ON CONFLICT (delivery_id) DO NOTHING
         RETURNING headers, body_signature, url
       ), stored AS (
         SELECT ${storedShared('headers', 'body_signature', '(SELECT event_type FROM delivery)')} AS headers, url
           FROM (SELECT headers, body_signature, url FROM shared UNION ALL SELECT headers, body_signature, url FROM webhook_request_headers WHERE delivery_id = $1 LIMIT 1) found
       )
       UPDATE webhook_attempts SET started_at = $3, duration_ms = $4, status_code = $5, error = $6, response_body_excerpt = $7,
              url = ${urlToKeep('$8', '$9::jsonb IS NOT NULL', '(SELECT url FROM stored)')},
              request_headers = CASE WHEN ${compactSignatureOf('k.kept')} IS NULL THEN k.kept END, request_signature = ${compactSignatureOf('k.kept')}, finished = true
         FROM ${expectedOnce('x', '(SELECT headers FROM stored)', '$1::text', '$2::int', '$3::timestamptz')},
              LATERAL (SELECT ${attemptHeaders('$9::jsonb', 'x.expected')} AS kept OFFSET 0) k
        WHERE delivery_id = $1 AND number = $2`;

/**
 * The event type of the delivery of shared headers row `h`, which its event header says unless stored
 * (request-headers.ts compactShared). A lookup by key per attempt read: joined instead, PostgreSQL scanned
 * the deliveries again for every attempt (20 deliveries' attempts of 20,000: 2.7 ms joined, 2.1 looked up, 2.0 without).
 */
const EVENT_TYPE_OF = (h: string) => `(SELECT d.event_type FROM webhook_deliveries d WHERE d.id = ${h}.delivery_id)`;

/**
 * The attempts of the deliveries whose id `matches` (a condition on a delivery id column), oldest first per
 * delivery, with their headers as sent.
 */
const attemptsOf = (
  matches: (column: string) => string,
) => `SELECT a.delivery_id, a.number, a.trigger, a.started_at, a.duration_ms, a.status_code, a.error, a.response_body_excerpt,
              ${urlAsSent('a', 'h')} AS url, a.finished,
              ${headersAsSent(keptHeaders('a.request_headers', 'a.request_signature'), storedShared('h.headers', 'h.body_signature', EVENT_TYPE_OF('h')), 'a.delivery_id', 'a.number', 'a.started_at')} AS request_headers
         FROM webhook_attempts a LEFT JOIN webhook_request_headers h
              ON h.delivery_id = a.delivery_id AND ${matches('h.delivery_id')}
        WHERE ${matches('a.delivery_id')}
        ORDER BY a.delivery_id, a.number`;

/** The columns of an attempt as attemptsOf reads it. */
const ATTEMPT_COLUMNS = [
  'delivery_id',
  'number',
  'trigger',
  'started_at',
  'duration_ms',
  'status_code',
  'error',
  'response_body_excerpt',
  'url',
  'finished',
  'request_headers',
] as const;

/** The attempts of deliveries $1 (ids), oldest first per delivery, with their headers as sent. */
export const ATTEMPTS_OF_DELIVERIES = attemptsOf((column) => `${column} = ANY($1::text[]) AND ${WITHIN_IDS_OF(column, 'x', 'unnest($1::text[]) x')}`);

/**
 * The latest attempt (highest number) of each of deliveries $1 (ids), as ATTEMPTS_OF_DELIVERIES reads it:
 * one statement for a page of the log, whichever of its deliveries have attempts.
 */
export const LAST_ATTEMPTS_OF_DELIVERIES = `SELECT DISTINCT ON (delivery_id) * FROM (${ATTEMPTS_OF_DELIVERIES}) attempt ORDER BY delivery_id, number DESC`;

/**
 * Delivery $1 with its app's owner, and its attempts (oldest first) as columns prefixed `attempt_`: one row
 * per attempt, one with null attempt columns when it has none. One statement, so one snapshot: read apart,
 * a result committed between the two reads showed a finished attempt beside the status before it. One id,
 * so `= $1` lets PostgreSQL prune the partitions, planning or (prepared) starting the statement.
 */
export const DELIVERY_WITH_ATTEMPTS = `SELECT d.*, ap.owner_id, ${ATTEMPT_COLUMNS.map((column) => `a.${column} AS attempt_${column}`).join(', ')}
         FROM webhook_deliveries d JOIN apps ap ON ap.id = d.app_id
         LEFT JOIN (${attemptsOf((column) => `${column} = $1`)}) a ON true
        WHERE d.id = $1
        ORDER BY a.number`;

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

/** Attempts open longer than $1 ms on deliveries no live claim holds: a process died under them. */
export const CLOSE_ABANDONED_ATTEMPTS = `UPDATE webhook_attempts a SET ${CLOSE_AS_INTERRUPTED}
        WHERE NOT a.finished AND a.started_at < clock_timestamp() - $1 * interval '1 millisecond'
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id AND d.claim_expires_at > clock_timestamp())`;

/** How many deliveries are due with no live claim on them (counting stops at 1,000). */
export const COUNT_UNCLAIMED_DUE = `SELECT count(*)::int AS due FROM (
         SELECT 1 FROM webhook_deliveries
          WHERE ${QUEUED} AND next_attempt_at <= clock_timestamp()
            AND (claim_expires_at IS NULL OR claim_expires_at < clock_timestamp())
          LIMIT 1000) due_now`;

/** Recovery queues FAILED and HELD deliveries (both stored FAILED: `where` reads the status alone, which the app's status index serves). */
const QUEUE_FOR_RECOVERY = transitionSql(DeliveryEvent.RECOVERY_QUEUED, 'd');

/**
 * recoverWebhookDeliveries: the FAILED deliveries of app $1 with ids from $2 (created since then) are
 * queued for one MANUAL attempt each (RECOVERY_QUEUED), due at their creation time so the engine's time
 * order sends the oldest first. RETRYING while queued: no longer FAILED, so a second call skips them.
 */
export const QUEUE_RECOVERY = `WITH queued AS (
         UPDATE webhook_deliveries d
            SET ${QUEUE_FOR_RECOVERY.set}, updated_at = clock_timestamp()
          -- One whose body is gone cannot be sent: it stays FAILED (COUNT_UNRECOVERABLE counts it).
          WHERE d.app_id = $1 AND ${QUEUE_FOR_RECOVERY.where} AND d.id >= $2 AND ${BODY_KEPT('d')}
         RETURNING d.id, d.app_id, d.event_type, d.purchase_id, d.status, d.attempt_count, d.next_attempt_at, d.created_at, d.updated_at
       )
       SELECT q.*, a.owner_id FROM queued q JOIN apps a ON a.id = q.app_id ORDER BY q.id`;

/** The FAILED deliveries of app $1 with ids from $2 that recovery cannot send: their bodies passed WEBHOOK_BODY_RETENTION. */
export const COUNT_UNRECOVERABLE = `SELECT count(*)::int AS skipped FROM webhook_deliveries d
        WHERE d.app_id = $1 AND ${QUEUE_FOR_RECOVERY.where} AND d.id >= $2 AND NOT ${BODY_KEPT('d')}`;
