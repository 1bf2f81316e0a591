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
