import { AppStatus } from '../apps/index.js';

/**
 * The statements behind the charts. Each comes in two forms where attempts are counted: from the
 * rollups kept for the purpose (webhook_attempt_hourly / _minutely, written with each batch of results)
 * and from the attempts themselves ("raw": the reference the rollup is checked against, and the bench's
 * "before"). Both count an attempt in the hour (minute) it finished, 2xx as succeeded, anything else as
 * failed; attempts closed as interrupted (the worker stopped under them) are not outcomes and are left out.
 * Buckets are UTC hours/minutes/periods, oldest first, zero-filled by generate_series.
 */

/** The window's hour starts ($2 = hours), the current hour last. */
const HOURS = `hours AS (
         SELECT generate_series(date_trunc('hour', now(), 'UTC') - ($2 - 1) * interval '1 hour', date_trunc('hour', now(), 'UTC'), interval '1 hour') AS start
       )`;
const WINDOW_START = `date_trunc('hour', now(), 'UTC') - ($2 - 1) * interval '1 hour'`;
const FINISHED_AT = (alias: string) => `${alias}.started_at + ${alias}.duration_ms * interval '1 millisecond'`;
/** An attempt with an outcome ($interrupted: the error of an interrupted one). */
const HAS_OUTCOME = (alias: string, interrupted: string) => `${alias}.finished AND ${alias}.error IS DISTINCT FROM ${interrupted}`;

export const DeliveryStats = {
  /** $1 app ids, $2 hours: per hour, with the window's summed latency histogram on the first row only. */
  rollup: `WITH ${HOURS}, kept AS (
         SELECT hour, succeeded, failed, latency_counts FROM webhook_attempt_hourly WHERE app_id = ANY($1::text[]) AND hour >= ${WINDOW_START}
       ), per_hour AS (
         SELECT hour, sum(succeeded)::int AS succeeded, sum(failed)::int AS failed FROM kept GROUP BY hour
       ), latency AS (
         SELECT array_agg(n ORDER BY i) AS counts
           FROM (SELECT u.i, sum(u.c)::int AS n FROM kept, unnest(kept.latency_counts) WITH ORDINALITY AS u(c, i) GROUP BY u.i) s
       )
       SELECT h.start, coalesce(p.succeeded, 0) AS succeeded, coalesce(p.failed, 0) AS failed,
              CASE WHEN h.start = ${WINDOW_START} THEN l.counts END AS latency_counts
         FROM hours h LEFT JOIN per_hour p ON p.hour = h.start CROSS JOIN latency l
        ORDER BY h.start`,

  /** $1 app ids, $2 hours, $3 the interrupted error: per hour, with the window's exact p50/p95 on every row. */
  raw: `WITH ${HOURS}, done AS (
         SELECT ${FINISHED_AT('a')} AS finished_at, a.error IS NULL AS ok, a.duration_ms
           FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
          WHERE d.app_id = ANY($1::text[]) AND ${HAS_OUTCOME('a', '$3')} AND ${FINISHED_AT('a')} >= ${WINDOW_START}
       ), per_hour AS (
         SELECT date_trunc('hour', finished_at, 'UTC') AS hour, count(*) FILTER (WHERE ok)::int AS succeeded, count(*) FILTER (WHERE NOT ok)::int AS failed
           FROM done GROUP BY 1
       ), latency AS (
         SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50, percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95 FROM done
       )
       SELECT h.start, coalesce(p.succeeded, 0) AS succeeded, coalesce(p.failed, 0) AS failed, l.p50, l.p95
         FROM hours h LEFT JOIN per_hour p ON p.hour = h.start CROSS JOIN latency l
        ORDER BY h.start`,
};

/**
 * $1 app ids, $2 buckets: installations (installed_at), sales and refunds and the developer's signed
 * share (revenue_ledger, by when each was recorded) per `unit`, in UTC. `unit` is one of PERIOD_BUCKETS' units.
 */
export const EarningsSeries = (unit: 'day' | 'week' | 'month') => {
  const step = `interval '1 ${unit}'`;
  const utc = (column: string) => `date_trunc('${unit}', ${column} AT TIME ZONE 'UTC')`;
  return `WITH periods AS (
         SELECT generate_series(${utc('now()')} - ($2 - 1) * ${step}, ${utc('now()')}, ${step}) AS start
       ), since AS (
         SELECT min(start) AT TIME ZONE 'UTC' AS at FROM periods
       ), installs AS (
         SELECT ${utc('installed_at')} AS start, count(*)::int AS n FROM installations
          WHERE app_id = ANY($1::text[]) AND installed_at >= (SELECT at FROM since) GROUP BY 1
       ), ledger AS (
         SELECT ${utc('created_at')} AS start, count(*) FILTER (WHERE kind = 'SALE')::int AS purchases, count(*) FILTER (WHERE kind = 'REFUND')::int AS refunds,
                sum(developer_share_vnd) AS net
           FROM revenue_ledger WHERE app_id = ANY($1::text[]) AND created_at >= (SELECT at FROM since) GROUP BY 1
       )
       SELECT p.start AT TIME ZONE 'UTC' AS start, coalesce(i.n, 0) AS installs, coalesce(l.purchases, 0) AS purchases, coalesce(l.refunds, 0) AS refunds,
              coalesce(l.net, 0)::text AS net
         FROM periods p LEFT JOIN installs i ON i.start = p.start LEFT JOIN ledger l ON l.start = p.start
        ORDER BY p.start`;
};

const MINUTES = `minutes AS (
         SELECT generate_series(date_trunc('minute', now()) - interval '59 minutes', date_trunc('minute', now()), interval '1 minute') AS start
       )`;
const LAST_24_HOURS = `date_trunc('hour', now(), 'UTC') - interval '23 hours'`;

/** Review queue entries listed at most (oldest first): a chart, not the queue itself. */
export const REVIEW_QUEUE_LIMIT = 100;
export const FAILING_APPS_LIMIT = 10;

export const PlatformNumbers = {
  /** Every app's attempts per minute over the last 60 minutes. */
  minutesRollup: `WITH ${MINUTES}, per_minute AS (
         SELECT minute, sum(succeeded)::int AS succeeded, sum(failed)::int AS failed FROM webhook_attempt_minutely
          WHERE minute >= date_trunc('minute', now()) - interval '59 minutes' GROUP BY minute
       )
       SELECT m.start, coalesce(p.succeeded, 0) AS succeeded, coalesce(p.failed, 0) AS failed
         FROM minutes m LEFT JOIN per_minute p ON p.minute = m.start ORDER BY m.start`,

  /** $1 the interrupted error. */
  minutesRaw: `WITH ${MINUTES}, per_minute AS (
         SELECT date_trunc('minute', ${FINISHED_AT('a')}) AS minute, count(*) FILTER (WHERE a.error IS NULL)::int AS succeeded, count(*) FILTER (WHERE a.error IS NOT NULL)::int AS failed
           FROM webhook_attempts a
          WHERE ${HAS_OUTCOME('a', '$1')} AND ${FINISHED_AT('a')} >= date_trunc('minute', now()) - interval '59 minutes' GROUP BY 1
       )
       SELECT m.start, coalesce(p.succeeded, 0) AS succeeded, coalesce(p.failed, 0) AS failed
         FROM minutes m LEFT JOIN per_minute p ON p.minute = m.start ORDER BY m.start`,

  reviewQueue: `SELECT id AS app_id, name, submitted_at FROM apps WHERE status = '${AppStatus.PENDING_REVIEW}' ORDER BY submitted_at, id LIMIT ${REVIEW_QUEUE_LIMIT}`,

  /** The apps with failed attempts over the last 24 hourly buckets, most failures first. */
  failingRollup: `SELECT h.app_id, a.name, sum(h.failed)::int AS failed, sum(h.succeeded + h.failed)::int AS attempts
         FROM webhook_attempt_hourly h JOIN apps a ON a.id = h.app_id
        WHERE h.hour >= ${LAST_24_HOURS}
        GROUP BY h.app_id, a.name HAVING sum(h.failed) > 0
        ORDER BY failed DESC, h.app_id LIMIT ${FAILING_APPS_LIMIT}`,

  /** $1 the interrupted error. */
  failingRaw: `SELECT d.app_id, ap.name, count(*) FILTER (WHERE a.error IS NOT NULL)::int AS failed, count(*)::int AS attempts
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN apps ap ON ap.id = d.app_id
        WHERE ${HAS_OUTCOME('a', '$1')} AND ${FINISHED_AT('a')} >= ${LAST_24_HOURS}
        GROUP BY d.app_id, ap.name HAVING count(*) FILTER (WHERE a.error IS NOT NULL) > 0
        ORDER BY failed DESC, d.app_id LIMIT ${FAILING_APPS_LIMIT}`,
};
