import { headersAsSent, keptHeaders, storedShared, urlAsSent } from './request-headers-sql.js';
import { openAttemptRows, WITHIN_IDS_OF } from './sql-fragments.js';

/** The Webhook Logs' reads of attempts: what delivery-log.service.ts and attempt-reads.ts ask. */

/**
 * The event type of the delivery of shared headers row `h`, which its event header says unless stored
 * (request-headers.ts compactShared). A lookup by key per attempt read: joined instead, PostgreSQL scanned
 * the deliveries again for every attempt (20 deliveries' attempts of 20,000: 2.7 ms joined, 2.1 looked up, 2.0 without).
 */
const EVENT_TYPE_OF = (h: string) => `(SELECT d.event_type FROM webhook_deliveries d WHERE d.id = ${h}.delivery_id)`;

/**
 * The attempts of the deliveries whose id `matches` (a condition on a delivery id column), oldest first per
 * delivery, with their headers as sent: those recorded, and those in flight (webhook_open_attempts), which read
 * as a started row did when it was kept in webhook_attempts, with no outcome yet (finished false). A result's write
 * moves an attempt from one to the other in one statement, so a snapshot sees it once.
 */
const attemptsOf = (
  matches: (column: string) => string,
  /** The same deliveries' ids as a query of `delivery_id`, for the attempts in flight (sql-fragments.ts openAttemptRows says why by key). */
  ids: string,
) => `SELECT a.delivery_id, a.number, a.trigger, a.started_at, a.duration_ms, a.status_code, a.error, a.response_body_excerpt,
              ${urlAsSent('a', 'h')} AS url, a.finished,
              ${headersAsSent(keptHeaders('a.request_headers', 'a.request_signature'), storedShared('h.headers', 'h.body_signature', EVENT_TYPE_OF('h')), 'a.delivery_id', 'a.number', 'a.started_at')} AS request_headers
         FROM (SELECT delivery_id, number, trigger, started_at, duration_ms, status_code, error, response_body_excerpt, url, request_headers, request_signature, finished
                 FROM webhook_attempts WHERE ${matches('delivery_id')}
               UNION ALL
               SELECT delivery_id, number, trigger, started_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false
                 FROM webhook_open_attempts WHERE ctid = ANY (${openAttemptRows(ids, false)})) a
         LEFT JOIN webhook_request_headers h
              ON h.delivery_id = a.delivery_id AND ${matches('h.delivery_id')}
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
export const ATTEMPTS_OF_DELIVERIES = attemptsOf(
  (column) => `${column} = ANY($1::text[]) AND ${WITHIN_IDS_OF(column, 'x', 'unnest($1::text[]) x')}`,
  'SELECT unnest($1::text[]) AS delivery_id',
);

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
         LEFT JOIN (${attemptsOf((column) => `${column} = $1`, 'SELECT $1::text AS delivery_id')}) a ON true
        WHERE d.id = $1
        ORDER BY a.number`;
