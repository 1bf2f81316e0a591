/**
 * SQL fragments that more than one owner's statements share: the engine's claim and result write, the manual
 * attempt and recovery, and the log read (each file of statements imports what it uses from here).
 */

/** The error of an attempt whose worker stopped (or died) before it finished. */
export const INTERRUPTED = 'interrupted: the worker stopped before this attempt finished; the delivery was taken over';

/**
 * `key` lies between the smallest and the largest `column` of `source`: webhook_attempts and
 * webhook_request_headers are partitioned by delivery id (platform/time-partitions.ts), and PostgreSQL
 * prunes partitions by such a range once the subqueries have run, never by `= ANY` of an array it does
 * not know when planning (a CTE's, or a prepared statement's parameter), nor through a join: without
 * it these statements read every partition, a span (a week) each (attempt-partition-plans.test.ts).
 */
export const WITHIN_IDS_OF = (key: string, column: string, source: string) => `${key} BETWEEN (SELECT min(${column}) FROM ${source}) AND (SELECT max(${column}) FROM ${source})`;

/** Closes an open attempt `a` as interrupted, with the time it was open as its duration. */
export const CLOSE_AS_INTERRUPTED = `finished = true, error = '${INTERRUPTED}',
                duration_ms = GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - a.started_at)) * 1000)::int`;

/** The delivery `alias` still has its body: WEBHOOK_BODY_RETENTION removes the events of settled deliveries. */
export const BODY_KEPT = (alias: string) => `EXISTS (SELECT 1 FROM webhook_events ev WHERE ev.id = ${alias}.event_id)`;

/** A rotation's overlap still runs for the client secret row `alias`. */
const OVERLAPPING = (alias: string) => `${alias}.previous_valid_until > clock_timestamp()`;

/**
 * The sealed secrets a request is signed with, from client secret row `alias`: the current one, and the replaced
 * one while a rotation's overlap runs (an ended overlap's is not fetched). What SigningSecrets opens (opened-secrets.ts).
 */
export const SEALED_SECRETS = (alias: string) => `${alias}.key_id, ${alias}.ciphertext,
              CASE WHEN ${OVERLAPPING(alias)} THEN ${alias}.previous_key_id END AS previous_key_id,
              CASE WHEN ${OVERLAPPING(alias)} THEN ${alias}.previous_ciphertext END AS previous_ciphertext,
              CASE WHEN ${OVERLAPPING(alias)} THEN ${alias}.previous_valid_until END AS previous_valid_until`;

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
