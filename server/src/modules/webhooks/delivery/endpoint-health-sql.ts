import { sqlLiterals } from '../../../platform/sql-literals.js';
import { DeliveryStatus } from '../webhook.types.js';

const FAILED = sqlLiterals(DeliveryStatus.FAILED);

/**
 * Each endpoint's run of failures, kept up by the result write itself (no statement per delivery on the
 * hot path): per endpoint of the batch, one upsert when it has a failure after its last success here, one
 * probe by key when it succeeded (which writes only if a run was open). A run starts at its first failed
 * attempt; a delivery that ends FAILED counts. Per endpoint, not per app: one dead endpoint of an app must
 * not have its healthy ones disabled. Used by WRITE_RESULTS (r, moved_on).
 *
 * Every endpoint of a batch is usually in every other worker's batch too, and a batch fails at one endpoint where
 * another worker's succeeds: the rows it will change are locked first, all in one pass in key order (health_locked),
 * before the upsert and the update change them. Locked by the upsert and then by the update, in two passes, one
 * worker held the rows of its failures and waited for those of its successes while another held those and waited
 * for these: PostgreSQL aborted one write (40P01).
 */
export const ENDPOINT_HEALTH = `outcomes AS (
         SELECT endpoint_id, app_id, max(started_at) FILTER (WHERE error IS NULL) AS succeeded_at,
                max(started_at) FILTER (WHERE error IS NOT NULL) AS failed_at
           FROM (SELECT m.endpoint_id, m.app_id, m.status, x.started_at, x.error FROM moved_on m JOIN r x ON x.delivery_id = m.id
                  -- Only while a migration's backfill runs can a delivery have no endpoint yet; its run is not kept.
                  WHERE m.endpoint_id IS NOT NULL) o
          GROUP BY endpoint_id, app_id
       ), failures AS (
         -- The failures after the endpoint's last success in this batch: the run they start or continue.
         SELECT o.endpoint_id, o.app_id, o.succeeded_at, min(x.started_at) AS first_failed_at, max(x.started_at) AS last_failed_at,
                (array_agg(x.error ORDER BY x.started_at DESC))[1] AS last_error,
                count(*) FILTER (WHERE m.status = ${FAILED})::int AS ended_failed
           FROM outcomes o JOIN moved_on m ON m.endpoint_id = o.endpoint_id JOIN r x ON x.delivery_id = m.id
          WHERE x.error IS NOT NULL AND x.started_at > COALESCE(o.succeeded_at, '-infinity')
          GROUP BY o.endpoint_id, o.app_id, o.succeeded_at
       ), health_locked AS (
         -- The existing rows that failing and recovered below change, as they decide it (a failure after the batch's
         -- last success; a success after its last failure ending a run), locked in key order: the LockRows step runs
         -- above the sort. A row inserted by the upsert is new, and the upsert inserts in key order too.
         SELECT h.endpoint_id FROM outcomes o JOIN webhook_endpoint_health h ON h.endpoint_id = o.endpoint_id
          WHERE o.failed_at > COALESCE(o.succeeded_at, '-infinity')
             OR (o.succeeded_at > COALESCE(o.failed_at, '-infinity') AND h.failing_since IS NOT NULL)
          ORDER BY h.endpoint_id
            FOR UPDATE OF h
       ), health_lock_taken AS MATERIALIZED (
         -- Read once, by both writers below as their one-time condition: neither changes a row before all are locked.
         SELECT count(*) AS n FROM health_locked
       ), failing AS (
         INSERT INTO webhook_endpoint_health AS h (endpoint_id, app_id, failing_since, last_failure_at, last_error, failed_deliveries, recovered_at)
         SELECT endpoint_id, app_id, first_failed_at, last_failed_at, last_error, ended_failed, succeeded_at FROM failures
          WHERE (SELECT n FROM health_lock_taken) >= 0
          ORDER BY endpoint_id
         ON CONFLICT (endpoint_id) DO UPDATE
            -- A success earlier in this batch (recovered_at) ended the run before: this one starts afresh.
            SET failing_since = CASE WHEN EXCLUDED.recovered_at IS NULL THEN COALESCE(h.failing_since, EXCLUDED.failing_since) ELSE EXCLUDED.failing_since END,
                failed_deliveries = CASE WHEN EXCLUDED.recovered_at IS NULL AND h.failing_since IS NOT NULL THEN h.failed_deliveries ELSE 0 END + EXCLUDED.failed_deliveries,
                last_failure_at = GREATEST(h.last_failure_at, EXCLUDED.last_failure_at),
                last_error = EXCLUDED.last_error,
                recovered_at = COALESCE(EXCLUDED.recovered_at, h.recovered_at)
         RETURNING h.failed_deliveries
       ), recovered AS (
         -- Among the rows locked above only: a healthy endpoint's row (most of a batch's) is not looked up again.
         UPDATE webhook_endpoint_health h SET failing_since = NULL, failed_deliveries = 0, recovered_at = o.succeeded_at
           FROM health_locked l JOIN outcomes o ON o.endpoint_id = l.endpoint_id
          WHERE h.endpoint_id = l.endpoint_id AND o.succeeded_at > COALESCE(o.failed_at, '-infinity') AND h.failing_since IS NOT NULL
            AND (SELECT n FROM health_lock_taken) >= 0
         RETURNING h.endpoint_id
       )`;
