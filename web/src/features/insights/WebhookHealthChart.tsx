import { useQuery } from '@apollo/client/react';
import { useId, useState } from 'react';
import type { StatsWindow } from '../../gql/graphql';
import { useLocale, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { chartFormat, type ChartFormat } from './chart-format';
import { ChartTable } from './ChartTable';
import { ChoiceToggle } from './ChoiceToggle';
import { WebhookDeliveryStatsQuery } from './insights-queries';
import { DAILY_TICKS_OF_HOURS, HOURLY_TICKS } from './chart-types';
import { TimeChart } from './TimeChart';
import { deliveryTotals, type WebhookDeliveryStats } from './webhook-stats';

const WINDOWS: StatsWindow[] = ['LAST_24_HOURS', 'LAST_7_DAYS'];

/**
 * Webhook attempts per hour by outcome, with the success rate and p50/p95 latency: one app (appId) or all
 * of the developer's apps. The webhook's state banner is WebhookHealthPanel's, beside it.
 */
export function WebhookHealthChart({ appId }: { appId?: string }) {
  const t = useT();
  const format = chartFormat(useLocale());
  const headingId = useId();
  const [statsWindow, setStatsWindow] = useState<StatsWindow>('LAST_24_HOURS');
  const { data, error, refetch } = useQuery(WebhookDeliveryStatsQuery, {
    variables: appId ? { appId, window: statsWindow } : { window: statsWindow },
    fetchPolicy: 'cache-and-network',
  });
  // Another window's (or app's) numbers never stand in while these load.
  const stats = data?.webhookDeliveryStats.window === statsWindow ? data.webhookDeliveryStats : undefined;

  return (
    <section className="card insight" aria-labelledby={headingId}>
      <div className="insight-head">
        <h2 id={headingId}>{t(appId ? 'insights.health.heading' : 'insights.health.headingAll')}</h2>
        <ChoiceToggle
          label={t('insights.window.label')}
          choices={WINDOWS.map((value) => ({ value, label: t(`insights.window.${value}`) }))}
          value={statsWindow}
          onChange={setStatsWindow}
        />
      </div>
      {error && !stats ? (
        // A retry that fails shows as the query's error again.
        <ErrorMessage message={serverProblem(error).message} onRetry={() => void refetch()} />
      ) : !stats ? (
        <p aria-live="polite">{t('loading')}</p>
      ) : (
        <DeliveryVolume stats={stats} format={format} />
      )}
    </section>
  );
}

function DeliveryVolume({ stats, format }: { stats: WebhookDeliveryStats; format: ChartFormat }) {
  const t = useT();
  const totals = deliveryTotals(stats.buckets);
  const span = t(`insights.window.${stats.window}`);
  if (totals.total === 0) return <p className="chart-summary">{t(`insights.health.empty.${stats.window}`)}</p>;
  const noLatency = t('insights.none');
  return (
    <>
      <p className="chart-summary" aria-live="polite">
        {t('insights.health.summary', {
          span,
          succeeded: format.count(totals.succeeded),
          total: format.count(totals.total),
          rate: format.percent(stats.successRate ?? totals.succeeded / totals.total),
          p50: stats.latencyP50Ms === null ? noLatency : format.ms(stats.latencyP50Ms),
          p95: stats.latencyP95Ms === null ? noLatency : format.ms(stats.latencyP95Ms),
        })}
      </p>
      <TimeChart
        times={stats.buckets.map((bucket) => bucket.start)}
        series={[
          { label: t('insights.succeeded'), values: stats.buckets.map((bucket) => bucket.succeeded), color: 'success', kind: 'bar', stacked: true },
          { label: t('insights.failed'), values: stats.buckets.map((bucket) => bucket.failed), color: 'danger', kind: 'bar', stacked: true },
        ]}
        tick={stats.window === 'LAST_24_HOURS' ? format.tickTime : format.tickLocalDay}
        ticks={stats.window === 'LAST_24_HOURS' ? HOURLY_TICKS : DAILY_TICKS_OF_HOURS}
        leftValue={format.count}
      />
      <ChartTable
        caption={t('insights.health.tableCaption', { span })}
        columns={[t('insights.col.hour'), t('insights.succeeded'), t('insights.failed')]}
        rows={stats.buckets.map((bucket) => [<time dateTime={bucket.start}>{format.hour(bucket.start)}</time>, format.count(bucket.succeeded), format.count(bucket.failed)])}
      />
    </>
  );
}
