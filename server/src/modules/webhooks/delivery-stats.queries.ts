/**
 * The statements behind the delivery charts, over this feature's tables. Each comes in two forms where attempts
 * are counted: from the rollups kept for the purpose (webhook_attempt_hourly / _minutely, written with each
 * batch of results) and from the attempts themselves ("raw": the reference the rollup is checked against, and
 * the bench's "before"). Both count an attempt in the hour (minute) it finished, 2xx as succeeded, anything
 * else as failed; attempts closed as interrupted (the worker stopped under them) are not outcomes and are left
 * out. Buckets are UTC hours/minutes, oldest first, zero-filled by generate_series.
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

const MINUTES = `minutes AS (
         SELECT generate_series(date_trunc('minute', now()) - interval '59 minutes', date_trunc('minute', now()), interval '1 minute') AS start
       )`;
const LAST_24_HOURS = `date_trunc('hour', now(), 'UTC') - interval '23 hours'`;

export const PlatformDeliveries = {
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

  /** $1 how many: the apps with failed attempts over the last 24 hourly buckets, most failures first (their names are the apps feature's). */
  failingRollup: `SELECT h.app_id, sum(h.failed)::int AS failed, sum(h.succeeded + h.failed)::int AS attempts
         FROM webhook_attempt_hourly h
        WHERE h.hour >= ${LAST_24_HOURS}
        GROUP BY h.app_id HAVING sum(h.failed) > 0
        ORDER BY failed DESC, h.app_id LIMIT $1`,

  /** $1 how many, $2 the interrupted error. */
  failingRaw: `SELECT d.app_id, count(*) FILTER (WHERE a.error IS NOT NULL)::int AS failed, count(*)::int AS attempts
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE ${HAS_OUTCOME('a', '$2')} AND ${FINISHED_AT('a')} >= ${LAST_24_HOURS}
        GROUP BY d.app_id HAVING count(*) FILTER (WHERE a.error IS NOT NULL) > 0
        ORDER BY failed DESC, d.app_id LIMIT $1`,
};
