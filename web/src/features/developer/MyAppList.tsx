import { useQuery } from '@apollo/client/react';
import { graphql } from '../../gql';
import { developerAppPath, launcherPath } from '../../routes';
import { Link } from '../../ui/Link';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { formatDateTime } from '../../i18n/dates';
import { useT } from '../../i18n/i18n';

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
  const { data, loading, error, refetch } = useQuery(MyAppsQuery, { fetchPolicy: 'network-only' });

  return (
    <section className="card" aria-labelledby="my-apps-heading">
      <h2 id="my-apps-heading">Your apps</h2>
      {error && <ErrorMessage message={`Could not load your apps: ${error.message}`} onRetry={() => void refetch()} />}
      {loading && !data && <p aria-live="polite">Loading your apps…</p>}
      {data &&
        (data.myApps.length === 0 ? (
          <p>You have not submitted any apps yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Review due</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
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
                        <time dateTime={app.reviewDueAt}>{formatDateTime(app.reviewDueAt)}</time>
                        {app.reviewOverdue && <strong> {t('dev.overdue')}</strong>}
                      </span>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    {/* Developers may open their own app at any stage, to try the handshake before review. */}
                    <a href={launcherPath(app.id)} aria-label={`Open ${app.name}`}>
                      Open
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
