import { useQuery } from '@apollo/client/react';
import { useId, useState } from 'react';
import type { DeveloperEarningsQuery, EarningsPeriod } from '../../gql/graphql';
import { useLocale, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { chartFormat, type ChartFormat } from './chart-format';
import { ChartTable } from './ChartTable';
import { ChoiceToggle } from './ChoiceToggle';
import { DeveloperEarningsQuery as EarningsQuery } from './insights-queries';
import { CALENDAR_TICKS } from './chart-types';
import { TimeChart } from './TimeChart';

const PERIODS: EarningsPeriod[] = ['DAY', 'WEEK', 'MONTH'];

type Earnings = DeveloperEarningsQuery['developerEarnings'];

/** Installs, purchases, refunds and net earnings of all the developer's apps over time, per day, week or month. */
export function EarningsChart() {
  const t = useT();
  const format = chartFormat(useLocale());
  const headingId = useId();
  const [period, setPeriod] = useState<EarningsPeriod>('DAY');
  const { data, error, refetch } = useQuery(EarningsQuery, { variables: { period }, fetchPolicy: 'cache-and-network' });
  const earnings = data?.developerEarnings.period === period ? data.developerEarnings : undefined;

  return (
    <section className="card insight" aria-labelledby={headingId}>
      <div className="insight-head">
        <h2 id={headingId}>{t('insights.earnings.heading')}</h2>
        <ChoiceToggle label={t('insights.period.label')} choices={PERIODS.map((value) => ({ value, label: t(`insights.period.${value}`) }))} value={period} onChange={setPeriod} />
      </div>
      {error && !earnings ? (
        // A retry that fails shows as the query's error again.
        <ErrorMessage message={serverProblem(error).message} onRetry={() => void refetch()} />
      ) : !earnings ? (
        <p aria-live="polite">{t('loading')}</p>
      ) : (
        <EarningsOverTime earnings={earnings} format={format} />
      )}
    </section>
  );
}

function EarningsOverTime({ earnings, format }: { earnings: Earnings; format: ChartFormat }) {
  const t = useT();
  const span = t(`insights.span.${earnings.period}`);
  const sum = (pick: (bucket: Earnings['buckets'][number]) => number) => earnings.buckets.reduce((total, bucket) => total + pick(bucket), 0);
  const installs = sum((bucket) => bucket.installs);
  const purchases = sum((bucket) => bucket.purchases);
  const refunds = sum((bucket) => bucket.refunds);
  if (installs + purchases + refunds === 0 && earnings.totalNetEarningsVnd === 0) {
    return <p className="chart-summary">{t('insights.earnings.empty', { span })}</p>;
  }
  const label = earnings.period === 'MONTH' ? format.month : format.day;
  const periodName = (start: string) => (earnings.period === 'WEEK' ? t('insights.weekOf', { date: format.day(start) }) : label(start));
  return (
    <>
      <p className="chart-summary" aria-live="polite">
        {t('insights.earnings.summary', {
          span,
          installs: format.count(installs),
          purchases: format.count(purchases),
          refunds: format.count(refunds),
          net: format.vnd(earnings.totalNetEarningsVnd),
        })}
      </p>
      <TimeChart
        times={earnings.buckets.map((bucket) => bucket.start)}
        series={[
          { label: t('insights.col.net'), values: earnings.buckets.map((bucket) => bucket.netEarningsVnd), color: 'accent', kind: 'bar', axis: 'right' },
          { label: t('insights.col.installs'), values: earnings.buckets.map((bucket) => bucket.installs), color: 'success', kind: 'line' },
          { label: t('insights.col.purchases'), values: earnings.buckets.map((bucket) => bucket.purchases), color: 'ink', kind: 'line' },
          { label: t('insights.col.refunds'), values: earnings.buckets.map((bucket) => bucket.refunds), color: 'danger', kind: 'line' },
        ]}
        tick={earnings.period === 'MONTH' ? format.tickMonth : format.tickDay}
        ticks={CALENDAR_TICKS}
        leftValue={format.count}
        rightValue={format.vnd}
      />
      <ChartTable
        caption={t('insights.earnings.tableCaption', { span })}
        columns={[t('insights.col.period'), t('insights.col.installs'), t('insights.col.purchases'), t('insights.col.refunds'), t('insights.col.net')]}
        rows={earnings.buckets.map((bucket) => [
          <time dateTime={bucket.start}>{periodName(bucket.start)}</time>,
          format.count(bucket.installs),
          format.count(bucket.purchases),
          format.count(bucket.refunds),
          format.vnd(bucket.netEarningsVnd),
        ])}
      />
    </>
  );
}
