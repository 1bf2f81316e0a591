import { useQuery } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useState } from 'react';
import { codeLabel, useFormat, useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import { launcherPath, navigate } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { Link } from '../../ui/Link';
import { announceDecision } from './decision-notice';
import { DecisionForm } from './DecisionForm';
import { DeveloperRecord } from './DeveloperRecord';
import { PreCheckReport } from './PreCheckReport';
import { ReviewHistory } from './ReviewHistory';
import { ReviewAppQuery } from './review-operations';

type ReviewedApp = NonNullable<ResultOf<typeof ReviewAppQuery>['app']>;

export function ReviewPage({ appId, onDecided = () => navigate('/review') }: { appId: string; onDecided?: () => void }) {
  const t = useT();
  const query = useQuery(ReviewAppQuery, { variables: { appId }, fetchPolicy: 'cache-and-network' });
  // Remounting the form after a reload clears the stale CONFLICT and keeps the reviewer's choices only if still valid.
  const [formKey, setFormKey] = useState(0);
  const app = query.data?.app;

  // A retry that fails shows as the query's error again.
  if (query.error && !app) return <ErrorMessage message={query.error.message} onRetry={() => void query.refetch()} />;
  if (!query.data) return <p aria-live="polite">{t('review.loading')}</p>;
  if (!app) return <p>{t('review.notFound')}</p>;

  // A refresh that fails shows as the query's error. The form keeps what was typed.
  const reload = () => void query.refetch({ appId }).then(() => setFormKey((key) => key + 1));

  return (
    <>
      <p>
        <Link href="/review">{t('review.backToQueue')}</Link>
      </p>
      <section className="card" aria-labelledby="review-app-heading">
        <div className="review-app-head">
          <AppIcon src={app.iconUrl} name={app.name} size={64} alt={t('review.iconAlt', { name: app.name })} />
          <h1 id="review-app-heading">{app.name}</h1>
        </div>
        <ReviewFacts app={app} />
        <div className="actions">
          <a className="button-link secondary" href={launcherPath(app.id)} target="_blank" rel="noopener">
            {t('review.preview')}
          </a>
        </div>
      </section>
      {app.developer && <DeveloperRecord developer={app.developer} />}
      <PreCheckReport report={app.preChecks} headingId="review-pre-checks-heading" />
      <ReviewHistory decisions={app.reviewDecisions} showRevision />
      <section className="card">
        {app.status !== 'PENDING_REVIEW' ? (
          <p>{t('review.notPending', { status: t(`status.${app.status}` as MessageKey) })}</p>
        ) : app.ownerId === query.data.me?.id ? (
          // The server refuses it too (FORBIDDEN); saying so here spares a decision that cannot be sent.
          <p role="note">{t('review.ownApp')}</p>
        ) : (
          <DecisionForm
            key={formKey}
            appId={app.id}
            revision={app.revision}
            onDecided={(outcome) => {
              // Said on the queue page the reviewer lands on next.
              announceDecision({ appName: app.name, outcome });
              onDecided();
            }}
            onReload={reload}
          />
        )}
      </section>
    </>
  );
}

function ReviewFacts({ app }: { app: ReviewedApp }) {
  const t = useT();
  const format = useFormat();
  return (
    <dl className="facts">
      <dt>{t('form.shortDescription')}</dt>
      <dd>{app.shortDescription}</dd>
      <dt>{t('form.appUrl')}</dt>
      <dd className="break-anywhere">{app.appUrl}</dd>
      <dt>{t('form.iconUrl')}</dt>
      <dd className="break-anywhere">{app.iconUrl}</dd>
      <dt>{t('store.about')}</dt>
      <dd className="store-app-paragraph">{app.longDescription ?? t('dev.none')}</dd>
      <dt>{t('store.screenshots')}</dt>
      <dd>
        {app.screenshotUrls.length === 0 ? (
          t('dev.none')
        ) : (
          // Numbered as the pre-checks name them ("Screenshot 2 ...").
          <ol className="review-screenshots">
            {app.screenshotUrls.map((url, index) => (
              <li key={url + index} className="break-anywhere">
                {url}
              </li>
            ))}
          </ol>
        )}
      </dd>
      <dt>{t('store.support')}</dt>
      <dd className="break-anywhere">{app.supportUrl ?? t('dev.none')}</dd>
      <dt>{t('store.privacyPolicy')}</dt>
      <dd className="break-anywhere">{app.privacyPolicyUrl ?? t('dev.none')}</dd>
      <dt>{t('form.category')}</dt>
      <dd>{codeLabel(t, 'category', app.category)}</dd>
      <dt>{t('dev.price')}</dt>
      <dd>{app.pricing === 'PAID' ? t('store.price', { points: app.pricePoints ?? 0 }) : t('store.free')}</dd>
      <dt>{t('form.webhookUrlLabel')}</dt>
      <dd className="break-anywhere">{app.webhookUrl ?? t('dev.none')}</dd>
      <dt>{t('review.status')}</dt>
      <dd>{t(`status.${app.status}` as MessageKey)}</dd>
      <dt>{t('review.revision')}</dt>
      <dd>{app.revision}</dd>
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
  );
}
