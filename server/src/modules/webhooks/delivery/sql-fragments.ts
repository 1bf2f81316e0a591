/**
 * SQL fragments that more than one owner's statements share: the engine's claim and result write, the manual
 * attempt and recovery, and the log read (each file of statements imports what it uses from here).
 */

import { SEALED_SECRETS } from '../../secrets/index.js';
import { attemptHeadersFromWorker, storedShared, urlToKeep } from './request-headers-sql.js';

/** The error of an attempt whose worker stopped (or died) before it finished. */
export const INTERRUPTED = 'interrupted: the worker stopped before this attempt finished; the delivery was taken over';

/**
 * `key` lies between the smallest and the largest `column` of `source`: webhook_attempts and
 * webhook_request_headers are partitioned by delivery id (platform/time-partitions.ts), and PostgreSQL
 * prunes partitions by such a range once the subqueries have run, never by `= ANY` of an array it does
 * not know when planning (a CTE's, or a prepared statement's parameter), nor through a join: without
 * it these statements read every partition, a span (a week) each (attempt-partition-plans.test.ts). Only in
 * statements that change nothing (recordAttemptsBounds says why).
 */
export const WITHIN_IDS_OF = (key: string, column: string, source: string) => `${key} BETWEEN (SELECT min(${column}) FROM ${source}) AND (SELECT max(${column}) FROM ${source})`;

/** The time attempt `a` has been open, as the duration it is closed with when interrupted. */
const OPEN_FOR = (a: string) => `GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - ${a}.started_at)) * 1000)::int`;

/**
 * Closes an attempt `a` left open in webhook_attempts itself as interrupted. Only the previous release records a
 * started attempt there (this one keeps it in webhook_open_attempts until it ends: closeOpenAttempts): while it runs
 * beside this one, and until its last open attempts are closed, its rows are closed where they are.
 */
export const CLOSE_AS_INTERRUPTED = `finished = true, error = '${INTERRUPTED}', duration_ms = ${OPEN_FOR('a')}`;

/**
 * The rows of webhook_open_attempts of `keys` (a query of `delivery_id`, and `number` when `byNumber`), as an array of
 * their ctids: each key looked up through the primary key on its own (OFFSET 0 keeps the planner from turning the
 * lookups into a join). The table churns, a row inserted and deleted per attempt, so between two vacuums it spans pages of
 * dead rows: joined, PostgreSQL read them all for every statement (a result batch: 0.8 ms for 300 live rows in 210
 * pages), whatever the statistics said.
 */
export const openAttemptRows = (keys: string, byNumber: boolean) => `ARRAY(SELECT f.ctid FROM (${keys}) k
           CROSS JOIN LATERAL (SELECT o.ctid FROM webhook_open_attempts o
                                WHERE o.delivery_id = k.delivery_id${byNumber ? ' AND o.number = k.number' : ''} OFFSET 0) f)`;

/**
 * CTEs `${name}` and `${name}_recorded`: the started attempts of webhook_open_attempts `o` that match `which` leave it
 * and are recorded in webhook_attempts as interrupted, with the time they were open as their duration. An attempt's
 * record is inserted only by the statement that removed its open row (here, or its result's write), and a row is
 * removed once: no other record of the key can be there, so the insert needs no unique key to check against. A late
 * result replaces the interrupted record (RECORD_LATE_OUTCOMES). `${name}_recorded` returns one row per attempt
 * closed. `which` reaches rows by openAttemptRows, or by a scan of the whole table where all of it is in question
 * (the recovery pass).
 */
export const closeOpenAttempts = (name: string, which: string) => `${name} AS (
         DELETE FROM webhook_open_attempts o WHERE ${which}
         RETURNING o.delivery_id, o.number, o.trigger, o.started_at, ${OPEN_FOR('o')} AS duration_ms
       ), ${name}_recorded AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, error, finished)
         SELECT delivery_id, number, trigger, started_at, duration_ms, '${INTERRUPTED}', true FROM ${name}
         RETURNING 1
       )`;

/**
 * The statement that records `rows` (delivery_id, number, trigger, started_at) as attempts started: in
 * webhook_open_attempts, a small table of the attempts in flight, so that webhook_attempts gets each attempt once,
 * whole, when it ends (RECORD_ATTEMPTS) and its pages are filled to the brim (fillfactor 100: no room kept for a
 * result written over the started row, about 30% of its heap before).
 */
export const START_ATTEMPTS = (rows: string) => `INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) ${rows}`;

/** The delivery `alias` still has its body: WEBHOOK_BODY_RETENTION removes the events of settled deliveries. */
export const BODY_KEPT = (alias: string) => `EXISTS (SELECT 1 FROM webhook_events ev WHERE ev.id = ${alias}.event_id)`;

/**
 * What sending a claimed delivery needs besides its row: the body, its endpoint's URL and state, the app's
 * owner, and the sealed secret (with the replaced one while a rotation's overlap runs; an ended overlap's is
 * not fetched). The body is read by key for each row, not joined: joined, the planner read the whole events
 * table for a claim once it held some tens of thousands of rows (see the claim). A delivery whose endpoint was
 * deleted gets no URL and no state; one with no endpoint yet (a migration's backfill still running) the app's.
 */
export const ATTEMPT_MATERIALS = (alias: string) =>
  `(SELECT ev.payload FROM webhook_events ev WHERE ev.id = ${alias}.event_id) AS payload, ${alias}.endpoint_id,
              CASE WHEN ${alias}.endpoint_id IS NULL THEN a.webhook_url ELSE e.url END AS webhook_url,
              CASE WHEN ${alias}.endpoint_id IS NULL THEN a.webhook_state ELSE e.state END AS webhook_state,
              e.rate_limit_per_second, a.owner_id, ${SEALED_SECRETS('s')}`;

export const JOIN_ATTEMPT_MATERIALS = (alias: string) => `JOIN apps a ON a.id = ${alias}.app_id
         JOIN client_secrets s ON s.app_id = ${alias}.app_id
         LEFT JOIN webhook_endpoints e ON e.id = ${alias}.endpoint_id`;

/**
 * The columns of one attempt's record, as attempt-results.ts attemptRecord gives them: its outcome, and its
 * headers as sent (`headers`) with the worker's split of them as stored (request-headers.ts storedHeaders).
 */
export const ATTEMPT_RECORD_COLUMNS = `delivery_id text, number int, trigger text, started_at timestamptz, duration_ms int, status_code int, error text, excerpt text, url text,
                headers jsonb, event_type text, shared jsonb, shared_signature text, kept jsonb, signature text`;

/**
 * The stored shared headers of an attempt's delivery (`s` inserted now, or `h` there before) are the worker's
 * split of its own (`r`): compared as stored, two small values, instead of read back.
 */
const SAME_SHARED = `(r.s_delivery_id IS NOT NULL OR h.delivery_id IS NOT NULL)
                AND COALESCE(r.s_headers, h.headers) IS NOT DISTINCT FROM r.shared
                AND COALESCE(r.s_body_signature, h.body_signature) IS NOT DISTINCT FROM decode(r.shared_signature, 'hex')`;

/**
 * RECORD_ATTEMPTS' parameters: the lowest and highest delivery id of `records`, and the deliveries with an attempt
 * before the one recorded (whose shared headers may be stored already).
 *
 * Bounds given as parameters, not worked out in the statement (WITHIN_IDS_OF) nor taken from a joined row: a statement
 * that changes rows another transaction may change at the same time must not prune partitions by a value known only
 * while it runs. There PostgreSQL 18.4 rechecks a row changed under it (EvalPlanQual) with its own copy of the plan,
 * whose set-up of the partitioned scans in the statement's other CTEs leaves their pruning pointing at memory freed when
 * the recheck ends, and the next pruning there calls through it: backends crashed with SIGSEGV in
 * perform_pruning_base_step (from ExecAppend under the attempts' UPDATE, run as the statement finished) about once a
 * CI run, and within minutes of result writes racing claim renewals in a stress run. Parameters prune once, as the
 * statement starts, and a recheck reuses that (attempt-partition-plans.test.ts holds the plans to it).
 */
export function recordAttemptsBounds(records: readonly { delivery_id: string; number: number }[]): [string, string, string[]] {
  const withEarlierAttempts = [...new Set(records.filter((record) => record.number > 1).map((record) => record.delivery_id))];
  return [...idBounds(records.map((record) => record.delivery_id)), withEarlierAttempts];
}

/**
 * The lowest and highest of `ids` (at least one), code unit by code unit as JavaScript compares strings. PostgreSQL
 * orders Plaza's keys the same way under any collation: a fixed prefix, then a ULID's digits and capital letters.
 */
export function idBounds(ids: readonly string[]): [string, string] {
  let lowest = ids[0]!;
  let highest = lowest;
  for (const id of ids) {
    if (id < lowest) lowest = id;
    else if (id > highest) highest = id;
  }
  return [lowest, highest];
}

type RecordBounds = { lowest: string; highest: string; withEarlierAttempts: string };

/**
 * CTEs shared and with_shared: the first attempt sent stores the headers its delivery's attempts share, and each result
 * of `input` comes with the shared row inserted for its delivery just now, if it was (s_*).
 */
const WITH_SHARED_HEADERS = (input: string) => `shared AS (
         -- The first attempt sent stores the headers its delivery's attempts share, as the worker split and compacted them (request-headers.ts), and its URL.
         INSERT INTO webhook_request_headers (delivery_id, headers, body_signature, url)
         SELECT DISTINCT ON (delivery_id) delivery_id, shared, decode(shared_signature, 'hex'), url FROM ${input} WHERE headers IS NOT NULL ORDER BY delivery_id, number
         ON CONFLICT (delivery_id) DO NOTHING
         RETURNING delivery_id, headers, body_signature, url
       ), with_shared AS MATERIALIZED (
         -- Each result with the shared row inserted for its delivery just now, if it was (s_*), joined apart from the
         -- attempts (and materialised, not inlined): joined with them, the planner, expecting one attempt row from the partitions, scanned all of
         -- \`shared\` once per result (600 x 600 rows for a batch of 600: most of the statement's time).
         SELECT i.*, s.delivery_id AS s_delivery_id, s.headers AS s_headers, s.body_signature AS s_body_signature, s.url AS s_url
           FROM ${input} i LEFT JOIN shared s ON s.delivery_id = i.delivery_id
       )`;

/**
 * Each attempt of with_shared `r` as it is recorded: its outcome, and its headers as stored.
 * The worker's compact signature (r.signature) only where its split stands, as r.kept does. A delivery's row is
 * either inserted just now (s) or was there before (h), never both: COALESCE takes the one there is, column by column.
 * Where the stored shared part is another (a rotation changed the body signature since the first attempt, or a
 * first attempt elsewhere stored it) or none is visible, the attempt's part is worked out here against it.
 */
const RECORDED_ATTEMPTS = (
  bounds: RecordBounds,
) => `SELECT r.delivery_id, r.number, r.trigger, r.started_at, r.duration_ms, r.status_code, r.error, r.excerpt AS response_body_excerpt,
                ${urlToKeep('r.url', 'r.headers IS NOT NULL', 'COALESCE(r.s_url, h.url)')} AS url,
                ${attemptHeadersFromWorker('r', SAME_SHARED, storedShared('COALESCE(r.s_headers, h.headers)', 'COALESCE(r.s_body_signature, h.body_signature)', 'r.event_type'))} AS request_headers,
                CASE WHEN ${SAME_SHARED} THEN decode(r.signature, 'base64') END AS request_signature, true AS finished
           FROM with_shared r
           -- Looked up only for the deliveries with an earlier attempt (${bounds.withEarlierAttempts}): for a first attempt, whose
           -- shared row this statement inserts and cannot see, the probe (an index descent per result, a tenth of the
           -- result write's reads in benchmark 1) could only come back empty. Read apart (OFFSET 0), never by the joined
           -- row's id, and within the batch's bounds (recordAttemptsBounds says why).
           LEFT JOIN (SELECT h.delivery_id, h.headers, h.body_signature, h.url FROM webhook_request_headers h
                       WHERE h.delivery_id = ANY (${bounds.withEarlierAttempts}::text[]) AND h.delivery_id BETWEEN ${bounds.lowest} AND ${bounds.highest}
                      OFFSET 0) h ON h.delivery_id = r.delivery_id AND r.s_delivery_id IS NULL`;

const RECORD_COLUMNS = `delivery_id, number, trigger, started_at, duration_ms, status_code, error, response_body_excerpt, url, request_headers, request_signature, finished`;

/**
 * CTEs (shared, with_shared, open_rows_removed, attempts) that record the finished attempts of `input` (a CTE with
 * ATTEMPT_RECORD_COLUMNS; `bounds` name the parameters recordAttemptsBounds gives), each in place of its started row: the one way an attempt is recorded, by the engine's
 * result write and by a manual attempt alike, so that both store the very same rows.
 *
 * An attempt is recorded here only if this statement removed its started row. One removed before (its claim taken
 * over, handed back at shutdown, or found abandoned by the recovery pass) was recorded as interrupted by whoever
 * removed it, and its result is late: RECORD_LATE_OUTCOMES puts the outcome in its place, in a statement of its own.
 * It must be its own: a close committed while this statement ran (its DELETE waited for it) is not in this statement's
 * snapshot, so nothing here could find the interrupted record to replace; a statement begun after this one ends does.
 * `attempts` returns the keys recorded: RECORD_MANUAL_ATTEMPT counts them; the engine's write knows a late result
 * without them, by its delivery not being among those it moved on (attempt-results.ts).
 */
export const RECORD_ATTEMPTS = (input: string, bounds: RecordBounds) => `${WITH_SHARED_HEADERS(input)}, open_rows_removed AS (
         -- The started rows leave the attempts in flight (START_ATTEMPTS): a reader sees the started row or the
         -- recorded one, never both, nor neither.
         DELETE FROM webhook_open_attempts o WHERE o.ctid = ANY (${openAttemptRows(`SELECT delivery_id, number FROM ${input}`, true)})
         RETURNING o.delivery_id, o.number
       ), attempts AS (
         -- Each attempt is inserted whole, once, by the statement that removed its started row (a row is removed once).
         INSERT INTO webhook_attempts (${RECORD_COLUMNS})
         SELECT recorded.* FROM (${RECORDED_ATTEMPTS(bounds)}) recorded
          WHERE (recorded.delivery_id, recorded.number) IN (SELECT delivery_id, number FROM open_rows_removed)
         RETURNING delivery_id, number
       )`;

/**
 * The late results of $1 (WRITE_RESULTS' or RECORD_MANUAL_ATTEMPT's rows that their statement did not record; $2 to $4
 * as recordAttemptsBounds gives them): each replaces the interrupted record of its attempt, as it did when every
 * attempt was an update of its started row. Only an interrupted record: an outcome is never written over. Reached by
 * the batch's ids and bounds, never pruned by a joined row (recordAttemptsBounds says why). Returns how many it replaced.
 */
export const RECORD_LATE_OUTCOMES = `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(${ATTEMPT_RECORD_COLUMNS})
       ), ${WITH_SHARED_HEADERS('r')}, late AS (
         UPDATE webhook_attempts a
            SET started_at = recorded.started_at, duration_ms = recorded.duration_ms, status_code = recorded.status_code, error = recorded.error,
                response_body_excerpt = recorded.response_body_excerpt, url = recorded.url, request_headers = recorded.request_headers,
                request_signature = recorded.request_signature, finished = true
           FROM (${RECORDED_ATTEMPTS({ lowest: '$2', highest: '$3', withEarlierAttempts: '$4' })}) recorded
          WHERE a.delivery_id = ANY (ARRAY(SELECT delivery_id FROM r)) AND a.delivery_id BETWEEN $2 AND $3
            AND a.delivery_id = recorded.delivery_id AND a.number = recorded.number AND a.error = '${INTERRUPTED}'
         RETURNING 1
       )
       SELECT count(*)::int AS replaced FROM late`;
