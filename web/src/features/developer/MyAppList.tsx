import { useQuery } from '@apollo/client/react';
import { graphql } from '../../gql';
import { developerAppPath, launcherPath } from '../../routes';
import { Link } from '../../ui/Link';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { useFormat, useLocale, useT } from '../../i18n/i18n';
import { AlertIcon } from '../../ui/icons';
import { chartFormat } from '../insights/chart-format';
import { WebhookDeliveryStatsQuery } from '../insights/insights-queries';
import { deliveryTotals, webhookFailing } from '../insights/webhook-stats';
import { useDeliveryUpdates } from '../webhook-logs/insert-delivery';

const MyAppsQuery = graphql(`
  query MyApps {
    myApps {
      id
      name
      status
      reviewDueAt
      reviewOverdue
      webhookUrl
      webhookState
    }
  }
`);

/** Mount it per signed-in account (key it by user id): the list belongs to whoever holds the cookie now. */
export function MyAppList() {
  const t = useT();
  const format = useFormat();
  const { data, loading, error, refetch } = useQuery(MyAppsQuery, { fetchPolicy: 'network-only' });
  // Deliveries of all one's apps, live: one ending (a recovery, a redelivery) refreshes the webhook column.
  useDeliveryUpdates(undefined, () => undefined, { skip: !data?.myApps.some((app) => app.webhookUrl) });

  return (
    <section className="card" aria-labelledby="my-apps-heading">
      <h2 id="my-apps-heading">{t('myApps.yourApps')}</h2>
      {/* A retry that fails shows as the query's error again. */}
      {error && <ErrorMessage message={t('myApps.loadFailed', { message: error.message })} onRetry={() => void refetch()} />}
      {loading && !data && <p aria-live="polite">{t('myApps.loading')}</p>}
      {data &&
        (data.myApps.length === 0 ? (
          // The next step, not just "nothing": the one way to have an app here.
          <p>
            {t('myApps.empty')} <Link href="/developer/new">{t('myApps.submitFirst')}</Link>
          </p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('form.name')}</th>
                <th scope="col">{t('myApps.status')}</th>
                <th scope="col">{t('myApps.webhooks')}</th>
                <th scope="col">{t('dev.reviewDue')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('myApps.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.myApps.map((app) => (
                <tr key={app.id}>
                  <td>
                    <Link href={developerAppPath(app.id)}>{app.name}</Link>
                  </td>
                  <td>
                    <span className={`badge status-${app.status.toLowerCase()}`}>{t(`status.${app.status}`)}</span>
                  </td>
                  <td>{app.webhookUrl ? <WebhookHealthCell appId={app.id} disabled={app.webhookState === 'DISABLED'} /> : t('myApps.webhookNone')}</td>
                  <td>
                    {app.status === 'PENDING_REVIEW' ? (
                      <span className={app.reviewOverdue ? 'overdue' : undefined}>
                        <time dateTime={app.reviewDueAt}>{format.dateTime(app.reviewDueAt)}</time>
                        {app.reviewOverdue && <strong> {t('dev.overdue')}</strong>}
                      </span>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    {/* Developers may open their own app at any stage, to try the handshake before review. */}
                    <a href={launcherPath(app.id)} aria-label={t('myApps.openApp', { name: app.name })}>
                      {t('dev.open')}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}

/**
 * How the app's webhook did in the last 24 hours: its success rate, and a Failing (or Disabled) badge in the
 * danger colour with an icon, by the rule the app page's banner uses (without it a failing app
 * showed as just "Approved"). The same query as the banner's and the chart's default window: one cache entry.
 */
function WebhookHealthCell({ appId, disabled }: { appId: string; disabled: boolean }) {
  const t = useT();
  const format = chartFormat(useLocale());
  const stats = useQuery(WebhookDeliveryStatsQuery, { variables: { appId, window: 'LAST_24_HOURS' }, fetchPolicy: 'cache-and-network' }).data?.webhookDeliveryStats;
  if (!stats) return <span aria-hidden="true">…</span>;
  const totals = deliveryTotals(stats.buckets);
  const failing = webhookFailing(stats);
  return (
    <span className="webhook-health-cell" data-testid="webhook-health">
      {disabled || failing ? (
        <span className="badge webhook-failing">
          <AlertIcon /> {t(disabled ? 'myApps.webhookDisabled' : 'myApps.webhookFailing')}
        </span>
      ) : null}{' '}
      <span>{totals.total === 0 ? t('myApps.webhookIdle') : t('myApps.webhookRate', { rate: format.percent(stats.successRate ?? totals.succeeded / totals.total) })}</span>
    </span>
  );
}
