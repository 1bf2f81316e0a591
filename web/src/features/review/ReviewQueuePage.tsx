import { useQuery } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useEffect, useState } from 'react';
import { codeLabel, useFormat, useT } from '../../i18n/i18n';
import { reviewAppPath } from '../../routes';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { Link } from '../../ui/Link';
import { StatusMessage } from '../../ui/StatusMessage';
import { decisionAnnounced, decisionToAnnounce } from './decision-notice';
import { DeveloperLine } from './DeveloperRecord';
import { REVIEW_PAGE_SIZE, ReviewQueueQuery } from './review-operations';

type QueuedApp = ResultOf<typeof ReviewQueueQuery>['reviewQueue']['edges'][number]['node'];

export function ReviewQueuePage() {
  const t = useT();
  const queue = useQuery(ReviewQueueQuery, { variables: { first: REVIEW_PAGE_SIZE }, fetchPolicy: 'cache-and-network' });
  const connection = queue.data?.reviewQueue;
  const [decided] = useState(decisionToAnnounce);
  useEffect(decisionAnnounced, []);

  function loadMore() {
    if (!connection?.pageInfo.endCursor) return;
    // A page that fails to load leaves the list as it was, with its button to try again.
    void queue.fetchMore({
      variables: { after: connection.pageInfo.endCursor },
      // Pages are appended in the order the server gives them, which keeps oldest first.
      updateQuery: (previous, { fetchMoreResult }) => ({
        ...fetchMoreResult,
        reviewQueue: {
          ...fetchMoreResult.reviewQueue,
          edges: [...previous.reviewQueue.edges, ...fetchMoreResult.reviewQueue.edges],
        },
      }),
    });
  }

  return (
    <section className="card" aria-labelledby="review-queue-heading">
      <h1 id="review-queue-heading">{t('review.queueHeading')}</h1>
      <p className="hint">{t('review.queueLede')}</p>
      <StatusMessage message={decided && t(decided.outcome === 'APPROVED' ? 'review.decidedApproved' : 'review.decidedRejected', { name: decided.appName })} />
      {/* A retry that fails shows as the query's error again. */}
      {queue.error && <ErrorMessage message={queue.error.message} onRetry={() => void queue.refetch()} />}
      {!connection && !queue.error && <p aria-live="polite">{t('review.loading')}</p>}
      {connection && connection.edges.length === 0 && <p>{t('review.queueEmpty')}</p>}
      {connection && connection.edges.length > 0 && (
        <ol className="review-queue">
          {connection.edges.map(({ node }) => (
            <QueueEntry key={node.id} app={node} own={node.ownerId === queue.data?.me?.id} />
          ))}
        </ol>
      )}
      {connection?.pageInfo.hasNextPage && (
        <button type="button" className="secondary" onClick={loadMore} disabled={queue.loading}>
          {t('review.loadMore')}
        </button>
      )}
    </section>
  );
}

function QueueEntry({ app, own }: { app: QueuedApp; own: boolean }) {
  const t = useT();
  const format = useFormat();
  return (
    <li className={app.reviewOverdue ? 'review-entry is-overdue' : 'review-entry'}>
      <h2>
        <Link href={reviewAppPath(app.id)}>{app.name}</Link>
      </h2>
      {app.reviewOverdue && <span className="badge overdue-badge">{t('review.overdue')}</span>}
      {own && <span className="badge">{t('review.ownAppBadge')}</span>}
      <p>{app.shortDescription}</p>
      {app.developer && <DeveloperLine developer={app.developer} />}
      <p className="hint">
        {codeLabel(t, 'category', app.category)} · {app.pricing === 'PAID' ? t('store.price', { points: app.pricePoints ?? 0 }) : t('store.free')} · {app.appUrl}
      </p>
      <dl className="facts">
        <dt>{t('dev.submitted')}</dt>
        <dd>
          <time dateTime={app.submittedAt}>{format.dateTime(app.submittedAt)}</time>
        </dd>
        <dt>{t('review.due')}</dt>
        <dd className={app.reviewOverdue ? 'overdue' : undefined}>
          <time dateTime={app.reviewDueAt}>{format.dateTime(app.reviewDueAt)}</time>
          {app.reviewOverdue && ` ${t('dev.overdue')}`}
        </dd>
      </dl>
    </li>
  );
}
