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

/** Closes an open attempt `a` as interrupted, with the time it was open as its duration. */
export const CLOSE_AS_INTERRUPTED = `finished = true, error = '${INTERRUPTED}',
                duration_ms = GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - a.started_at)) * 1000)::int`;

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
export const ATTEMPT_RECORD_COLUMNS = `delivery_id text, number int, started_at timestamptz, duration_ms int, status_code int, error text, excerpt text, url text,
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

/**
 * CTEs (shared, with_shared, attempts) that record the finished attempts of `input` (a CTE with
 * ATTEMPT_RECORD_COLUMNS; `bounds` name the parameters recordAttemptsBounds gives), each over its started row: the one way an attempt is recorded, by the engine's
 * result write and by a manual attempt alike, so that both store the very same rows.
 */
export const RECORD_ATTEMPTS = (input: string, bounds: { lowest: string; highest: string; withEarlierAttempts: string }) => `shared AS (
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
       ), attempts AS (
         -- The worker's compact signature (r.signature) only where its split stands, as r.kept does. A delivery's row is
         -- either inserted just now (s) or was there before (h), never both: COALESCE takes the one there is, column by column.
         -- Where the stored shared part is another (a rotation changed the body signature since the first attempt, or a
         -- first attempt elsewhere stored it) or none is visible, the attempt's part is worked out here against it.
         UPDATE webhook_attempts a
            SET started_at = r.started_at, duration_ms = r.duration_ms, status_code = r.status_code, error = r.error,
                response_body_excerpt = r.excerpt, url = ${urlToKeep('r.url', 'r.headers IS NOT NULL', 'COALESCE(r.s_url, h.url)')},
                request_headers = ${attemptHeadersFromWorker('r', SAME_SHARED, storedShared('COALESCE(r.s_headers, h.headers)', 'COALESCE(r.s_body_signature, h.body_signature)', 'r.event_type'))},
                request_signature = CASE WHEN ${SAME_SHARED} THEN decode(r.signature, 'base64') END, finished = true
           FROM with_shared r
           -- Looked up only for the deliveries with an earlier attempt (${bounds.withEarlierAttempts}): for a first attempt, whose
           -- shared row this statement inserts and cannot see, the probe (an index descent per result, a tenth of the
           -- result write's reads in benchmark 1) could only come back empty. Read apart (OFFSET 0), never by the joined
           -- row's id, and within the batch's bounds (recordAttemptsBounds says why).
           LEFT JOIN (SELECT h.delivery_id, h.headers, h.body_signature, h.url FROM webhook_request_headers h
                       WHERE h.delivery_id = ANY (${bounds.withEarlierAttempts}::text[]) AND h.delivery_id BETWEEN ${bounds.lowest} AND ${bounds.highest}
                      OFFSET 0) h ON h.delivery_id = r.delivery_id AND r.s_delivery_id IS NULL
          WHERE a.delivery_id = r.delivery_id AND a.number = r.number AND a.delivery_id BETWEEN ${bounds.lowest} AND ${bounds.highest}
       )`;
