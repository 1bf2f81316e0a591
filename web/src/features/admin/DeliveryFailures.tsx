import { useQuery } from '@apollo/client/react';
import { useFormat, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { DeliveryFailuresQuery, FAILED_PAGE_SIZE, RETRYING_COUNT_LIMIT } from './admin-operations';

export function DeliveryFailures() {
  const t = useT();
  const format = useFormat();
  const query = useQuery(DeliveryFailuresQuery, {
    variables: { first: FAILED_PAGE_SIZE, retryingLimit: RETRYING_COUNT_LIMIT },
    fetchPolicy: 'cache-and-network',
  });
  const data = query.data;
  const retryingCount = data ? `${data.retrying.edges.length}${data.retrying.pageInfo.hasNextPage ? '+' : ''}` : '';

  return (
    <section className="card" aria-labelledby="admin-failures-heading">
      <h2 id="admin-failures-heading">{t('admin.failuresHeading')}</h2>
      {/* A retry that fails shows as the query's error again. */}
      {query.error && <ErrorMessage message={query.error.message} onRetry={() => void query.refetch()} />}
      {!data && !query.error && <p aria-live="polite">{t('review.loading')}</p>}
      {data && (
        <>
          <p>{t('admin.retryingCount', { count: retryingCount })}</p>
          {data.failed.edges.length === 0 ? (
            <p>{t('admin.noFailures')}</p>
          ) : (
            // Focusable, so keyboard users can scroll a table wider than the screen (axe: scrollable-region-focusable).
            <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="admin-failures-heading">
              <table>
                <caption className="visually-hidden">{t('admin.failuresHeading')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('admin.appId')}</th>
                    <th scope="col">{t('admin.event')}</th>
                    <th scope="col">{t('admin.purchaseId')}</th>
                    <th scope="col">{t('admin.attempts')}</th>
                    <th scope="col">{t('admin.created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.failed.edges.map(({ node }) => (
                    <tr key={node.id}>
                      <td className="id-text">{node.appId}</td>
                      <td>{node.eventName}</td>
                      <td className="id-text">{node.purchaseId}</td>
                      <td>{node.attemptCount}</td>
                      <td>
                        <time dateTime={node.createdAt}>{format.dateTime(node.createdAt)}</time>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {data.failed.pageInfo.hasNextPage && <p className="hint">{t('admin.moreFailures', { count: FAILED_PAGE_SIZE })}</p>}
        </>
      )}
    </section>
  );
}
