import { useQuery } from '@apollo/client/react';
import { useId, type CSSProperties } from 'react';
import type { PlatformStatsQuery as PlatformStatsResult } from '../../gql/graphql';
import { useLocale, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { chartFormat, type ChartFormat } from './chart-format';
import { ChartTable } from './ChartTable';
import { PlatformStatsQuery } from './insights-queries';
import { MINUTE_TICKS } from './chart-types';
import { TimeChart } from './TimeChart';
import { deliveryTotals } from './webhook-stats';

type PlatformStats = PlatformStatsResult['platformStats'];

/** The review promise the queue is measured against (decisions.md: review is due 24 hours after submission). */
const REVIEW_PROMISE_HOURS = 24;

/** For admins: webhook attempts per minute and their failure rate, the review queue's ages, the apps failing most. */
export function PlatformInsights() {
  const t = useT();
  const format = chartFormat(useLocale());
  const headingId = useId();
  const { data, error, refetch } = useQuery(PlatformStatsQuery, { fetchPolicy: 'cache-and-network' });
  const stats = data?.platformStats;
  return (
    <section className="card insight" aria-labelledby={headingId}>
      <div className="insight-head">
        <h2 id={headingId}>{t('insights.platform.heading')}</h2>
        {/* A refresh that fails shows as the query's error. */}
        <button type="button" className="secondary" onClick={() => void refetch()}>
          {t('insights.refresh')}
        </button>
      </div>
      {error && !stats ? (
        // A retry that fails shows as the query's error again.
        <ErrorMessage message={serverProblem(error).message} onRetry={() => void refetch()} />
      ) : !stats ? (
        <p aria-live="polite">{t('loading')}</p>
      ) : (
        <>
          <DeliveriesPerMinute stats={stats} format={format} />
          <ReviewQueueAges queue={stats.reviewQueue} format={format} />
          <AppsFailingMost apps={stats.appsFailingMost} format={format} />
        </>
      )}
    </section>
  );
}

function DeliveriesPerMinute({ stats, format }: { stats: PlatformStats; format: ChartFormat }) {
  const t = useT();
  const minutes = stats.deliveriesPerMinute;
  const totals = deliveryTotals(minutes);
  return (
    <>
      <h3>{t('insights.platform.deliveries')}</h3>
      {totals.total === 0 ? (
        <p className="chart-summary">{t('insights.platform.empty')}</p>
      ) : (
        <>
          <p className="chart-summary">
            {t('insights.platform.summary', {
              failed: format.count(totals.failed),
              total: format.count(totals.total),
              rate: format.percent(stats.failureRate ?? totals.failed / totals.total),
            })}
          </p>
          <TimeChart
            times={minutes.map((minute) => minute.start)}
            series={[
              { label: t('insights.succeeded'), values: minutes.map((minute) => minute.succeeded), color: 'success', kind: 'bar', stacked: true },
              { label: t('insights.failed'), values: minutes.map((minute) => minute.failed), color: 'danger', kind: 'bar', stacked: true },
            ]}
            tick={format.tickTime}
            ticks={MINUTE_TICKS}
            leftValue={format.count}
            height={180}
          />
          <ChartTable
            caption={t('insights.platform.deliveries')}
            columns={[t('insights.col.minute'), t('insights.succeeded'), t('insights.failed')]}
            rows={minutes.map((minute) => [<time dateTime={minute.start}>{format.hour(minute.start)}</time>, format.count(minute.succeeded), format.count(minute.failed)])}
          />
        </>
      )}
    </>
  );
}

/** Each submission's wait as a bar against the 24-hour promise (the marked line); overdue ones stand out. */
function ReviewQueueAges({ queue, format }: { queue: PlatformStats['reviewQueue']; format: ChartFormat }) {
  const t = useT();
  const overdue = queue.filter((entry) => entry.overdue).length;
  // The scale reaches a little past the promise, or past the longest wait.
  const scaleHours = Math.max(REVIEW_PROMISE_HOURS * 1.5, ...queue.map((entry) => entry.waitingHours));
  return (
    <>
      <h3>{t('insights.queue.heading')}</h3>
      {queue.length === 0 ? (
        <p className="chart-summary">{t('insights.queue.empty')}</p>
      ) : (
        <>
          <p className="chart-summary">{t('insights.queue.summary', { count: format.count(queue.length), overdue: format.count(overdue) })}</p>
          <table className="age-bars">
            <caption className="visually-hidden">{t('insights.queue.heading')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('insights.col.app')}</th>
                <th scope="col">{t('insights.col.submitted')}</th>
                <th scope="col">{t('insights.col.waiting')}</th>
              </tr>
            </thead>
            <tbody>
              {queue.map((entry) => (
                <tr key={entry.appId} className={entry.overdue ? 'overdue' : undefined}>
                  <th scope="row">{entry.appName}</th>
                  <td>
                    <time dateTime={entry.submittedAt}>{format.dateTime(entry.submittedAt)}</time>
                  </td>
                  <td>
                    <span className="age-bar promise" style={{ '--promise': `${(REVIEW_PROMISE_HOURS / scaleHours) * 100}%` } as CSSProperties}>
                      <span className="age-bar-fill" style={{ width: `${Math.min(100, (entry.waitingHours / scaleHours) * 100)}%` }} />
                    </span>
                    {format.hours(entry.waitingHours)}
                    {entry.overdue && <strong> {t('insights.queue.overdue')}</strong>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}

function AppsFailingMost({ apps, format }: { apps: PlatformStats['appsFailingMost']; format: ChartFormat }) {
  const t = useT();
  return (
    <>
      <h3>{t('insights.failingApps.heading')}</h3>
      {apps.length === 0 ? (
        <p className="chart-summary">{t('insights.failingApps.empty')}</p>
      ) : (
        <table className="age-bars">
          <caption className="visually-hidden">{t('insights.failingApps.heading')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('insights.col.app')}</th>
              <th scope="col">{t('insights.col.failedAttempts')}</th>
              <th scope="col">{t('insights.col.failureRate')}</th>
            </tr>
          </thead>
          <tbody>
            {apps.map((app) => (
              <tr key={app.appId}>
                <th scope="row">{app.appName}</th>
                <td>{t('insights.failingApps.attempts', { failed: format.count(app.failedAttempts), total: format.count(app.attempts) })}</td>
                <td>
                  <span className="age-bar">
                    <span className="age-bar-fill failing" style={{ width: `${Math.min(100, app.failureRate * 100)}%` }} />
                  </span>
                  {format.percent(app.failureRate)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
