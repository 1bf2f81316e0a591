import { useQuery } from '@apollo/client/react';
import { graphql } from '../../gql';
import { developerAppPath, launcherPath } from '../../routes';
import { Link } from '../../ui/Link';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { useFormat, useT } from '../../i18n/i18n';

const MyAppsQuery = graphql(`
  query MyApps {
    myApps {
      id
      name
      status
      reviewDueAt
      reviewOverdue
    }
  }
`);

/** Mount it per signed-in account (key it by user id): the list belongs to whoever holds the cookie now. */
export function MyAppList() {
  const t = useT();
  const format = useFormat();
  const { data, loading, error, refetch } = useQuery(MyAppsQuery, { fetchPolicy: 'network-only' });

  return (
    <section className="card" aria-labelledby="my-apps-heading">
      <h2 id="my-apps-heading">{t('myApps.yourApps')}</h2>
      {error && <ErrorMessage message={t('myApps.loadFailed', { message: error.message })} onRetry={() => void refetch()} />}
      {loading && !data && <p aria-live="polite">{t('myApps.loading')}</p>}
      {data &&
        (data.myApps.length === 0 ? (
          <p>{t('myApps.empty')}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('form.name')}</th>
                <th scope="col">{t('myApps.status')}</th>
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
