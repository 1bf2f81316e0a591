import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useEffect, useRef, useState } from 'react';
import { useFragment as readFragment } from '../../gql';
import { codeLabel, useFormat, useT } from '../../i18n/i18n';
import { launcherPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { StatusMessage } from '../../ui/StatusMessage';
import { PreCheckReport } from '../review/PreCheckReport';
import { ReviewHistory } from '../review/ReviewHistory';
import { NotificationAddedSubscription, NotificationFields } from '../notifications/notifications';
import { AppForm } from './AppForm';
import { eventWireName, toAppInput, type AppFormValues } from './app-rules';
import { ClientSecretPanel } from './ClientSecretPanel';
import { DeveloperAppQuery, UpdateAppMutation } from './developer-app';
import { EndpointsSection } from './EndpointsSection';
import { SendTestEvent } from './SendTestEvent';
import { WebhookEventCatalogue } from './WebhookEventCatalogue';
import { submissionAnnounced, submissionToAnnounce } from './submission-notice';
import { WebhookHealthPanel } from '../webhook-logs/WebhookHealthPanel';
import { WebhookHealthChart } from '../insights/WebhookHealthChart';
import { useDeliveryUpdates } from '../webhook-logs/insert-delivery';

type DeveloperApp = NonNullable<ResultOf<typeof DeveloperAppQuery>['app']>;

/** What the last save (or the first submission) did: whether it went to review is the news the developer needs. */
type SaveOutcome = { kind: 'saved' } | { kind: 'to-review' | 'resubmitted' | 'submitted'; due: string };

function saveOutcome(before: DeveloperApp['status'], after: ResultOf<typeof UpdateAppMutation>['updateApp']): SaveOutcome {
  if (after.status !== 'PENDING_REVIEW' || before === 'PENDING_REVIEW') return { kind: 'saved' };
  return { kind: before === 'REJECTED' ? 'resubmitted' : 'to-review', due: after.reviewDueAt };
}

const SAVE_NEWS = { 'to-review': 'dev.savedToReview', resubmitted: 'dev.savedResubmitted', submitted: 'dev.submittedForReview' } as const;

/** Reasons the server adds later still show, as their code. */

export function DeveloperAppPage({ appId }: { appId: string }) {
  const t = useT();
  const format = useFormat();
  const { data, loading, error, refetch } = useQuery(DeveloperAppQuery, { variables: { appId }, fetchPolicy: 'cache-and-network' });
  const [editing, setEditing] = useState(false);
  // A first submission lands here from the submit page: its news opens the page, in the same live region as a save's.
  const [saved, setSaved] = useState<SaveOutcome | null>(() => {
    const submitted = submissionToAnnounce(appId);
    return submitted && { kind: 'submitted', due: submitted.reviewDueAt };
  });
  useEffect(submissionAnnounced, []);
  const editButton = useRef<HTMLButtonElement>(null);
  // The form the developer was in is gone after a save: focus (and the view) goes to the app's actions, beside the news.
  useEffect(() => {
    if (saved) editButton.current?.focus();
  }, [saved]);
  const [updateApp] = useMutation(UpdateAppMutation);
  // A review decision (or any other news about this app) arrives as a notification: show it without a reload.
  useSubscription(NotificationAddedSubscription, {
    onData: ({ data: added }) => {
      const notification = readFragment(NotificationFields, added.data?.notificationAdded);
      // A refresh that fails shows as the query's error.
      if (notification?.appId === appId) void refetch();
    },
  });

  // The app's deliveries, live: one ending (a redelivery, a recovery, a retry) refreshes the health banner and chart.
  useDeliveryUpdates(appId, () => undefined, { skip: !data?.app?.webhookUrl });

  const savedText = (outcome: SaveOutcome) => (outcome.kind === 'saved' ? t('dev.saved') : t(SAVE_NEWS[outcome.kind], { due: format.dateTime(outcome.due) }));

  // A retry that fails shows as the query's error again.
  if (error) return <ErrorMessage message={t('dev.loadFailed', { message: error.message })} onRetry={() => void refetch()} />;
  if (loading && !data) return <p aria-live="polite">{t('loading')}</p>;
  const app = data?.app;
  if (!app) return <ErrorMessage message={t('dev.notFound')} />;

  return (
    <>
      <section className="card" aria-labelledby="developer-app-name">
        <div className="page-head">
          <AppIcon src={app.iconUrl} name={app.name} size={56} />
          <h1 id="developer-app-name">{app.name}</h1>
          <span className={`badge status-${app.status.toLowerCase()}`}>{t(`status.${app.status}`)}</span>
        </div>
        {app.status === 'PENDING_REVIEW' && (
          <p className={app.reviewOverdue ? 'overdue' : undefined}>
            {t('dev.reviewDue')} <time dateTime={app.reviewDueAt}>{format.dateTime(app.reviewDueAt)}</time>
            {app.reviewOverdue && <strong> {t('dev.overdue')}</strong>}
          </p>
        )}
        {app.webhookUrl && <WebhookHealthPanel appId={app.id} recovery={false} />}
        {editing ? (
          <AppForm
            initialValues={formValuesOf(app)}
            submitLabel={t(app.status === 'REJECTED' ? 'dev.saveResubmit' : 'dev.save')}
            busyLabel={t('dev.saving')}
            approved={app.status === 'APPROVED'}
            onSubmit={async (values) => {
              const result = await updateApp({ variables: { id: app.id, input: toAppInput(values, formValuesOf(app)) } });
              if (result.data) setSaved(saveOutcome(app.status, result.data.updateApp));
              setEditing(false);
              await refetch();
            }}
          />
        ) : (
          <>
            <AppFacts app={app} />
            <div className="actions">
              <button
                ref={editButton}
                type="button"
                onClick={() => {
                  setSaved(null);
                  setEditing(true);
                }}
              >
                {t(app.status === 'REJECTED' ? 'dev.editResubmit' : 'dev.edit')}
              </button>
              <a className="button-link secondary" href={launcherPath(app.id)}>
                {t('dev.open')}
              </a>
            </div>
          </>
        )}
        <StatusMessage message={saved && savedText(saved)} />
        {editing && (
          <button type="button" className="secondary" onClick={() => setEditing(false)}>
            {t('dev.cancelEdit')}
          </button>
        )}
      </section>
      {/* A refresh that fails shows as the query's error. */}
      <EndpointsSection appId={app.id} onChange={() => void refetch()} />
      {app.webhookUrl && <WebhookHealthChart appId={app.id} />}
      <ReviewHistory decisions={app.reviewDecisions} />
      <PreCheckReport report={app.preChecks} headingId="pre-checks-heading" />
      <ClientSecretPanel appId={app.id} />
      <SendTestEvent appId={app.id} hasWebhookUrl={app.webhookUrl !== null && app.webhookUrl !== undefined} />
      <WebhookEventCatalogue />
      <Earnings earnings={app.earnings} />
    </>
  );
}

function formValuesOf(app: DeveloperApp): AppFormValues {
  return {
    name: app.name,
    shortDescription: app.shortDescription,
    iconUrl: app.iconUrl,
    appUrl: app.appUrl,
    category: app.category,
    pricing: app.pricing,
    pricePoints: app.pricePoints ? String(app.pricePoints) : '',
    webhookUrl: app.webhookUrl ?? '',
    webhookEvents: [...app.webhookEvents],
    longDescription: app.longDescription ?? '',
    screenshotUrls: app.screenshotUrls.join('\n'),
    supportUrl: app.supportUrl ?? '',
    privacyPolicyUrl: app.privacyPolicyUrl ?? '',
  };
}

function AppFacts({ app }: { app: DeveloperApp }) {
  const t = useT();
  const format = useFormat();
  return (
    <dl className="facts">
      <dt>{t('form.shortDescription')}</dt>
      <dd>{app.shortDescription}</dd>
      <dt>{t('form.appUrl')}</dt>
      <dd>{app.appUrl}</dd>
      <dt>{t('form.iconUrl')}</dt>
      <dd>{app.iconUrl}</dd>
      <dt>{t('form.category')}</dt>
      <dd>{codeLabel(t, 'category', app.category)}</dd>
      <dt>{t('dev.price')}</dt>
      <dd>{app.pricing === 'PAID' ? t('store.price', { points: app.pricePoints ?? 0 }) : t('store.free')}</dd>
      <dt>{t('form.webhookUrlLabel')}</dt>
      <dd>{app.webhookUrl ?? t('dev.none')}</dd>
      <dt>{t('form.events')}</dt>
      <dd>{app.webhookEvents.map(eventWireName).join(', ')}</dd>
      <dt>{t('dev.submitted')}</dt>
      <dd>
        <time dateTime={app.submittedAt}>{format.dateTime(app.submittedAt)}</time>
      </dd>
    </dl>
  );
}

function Earnings({ earnings }: { earnings: DeveloperApp['earnings'] }) {
  const t = useT();
  const { vnd, number } = useFormat();
  return (
    <section className="card" aria-labelledby="earnings-heading">
      <h2 id="earnings-heading">{t('dev.earnings')}</h2>
      {!earnings ? (
        <p>{t('dev.noSales')}</p>
      ) : (
        <dl className="facts">
          <dt>{t('dev.sales')}</dt>
          <dd>{number(earnings.salesCount)}</dd>
          <dt>{t('dev.gross')}</dt>
          <dd>{vnd(earnings.grossSalesVnd)}</dd>
          <dt>{t('dev.share')}</dt>
          <dd>{vnd(earnings.developerShareVnd)}</dd>
          <dt>{t('dev.refunds')}</dt>
          <dd>
            {number(earnings.refundsCount)} ({vnd(earnings.refundedVnd)})
          </dd>
          <dt>{t('dev.net')}</dt>
          <dd>{vnd(earnings.netDeveloperShareVnd)}</dd>
        </dl>
      )}
    </section>
  );
}
