import { useMutation, useQuery } from '@apollo/client/react';
import { useFragment as readFragment } from '../../gql';
import { useEffect, useId, useRef, useState } from 'react';
import { useLocale, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { AlertIcon, CheckIcon } from '../../ui/icons';
import { serverProblem } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { chartFormat } from '../insights/chart-format';
import { WebhookDeliveryStatsQuery } from '../insights/insights-queries';
import { deliveryTotals, webhookFailing } from '../insights/webhook-stats';
import { AppWebhookEndpointsQuery, ResumeWebhookEndpointMutation, WebhookEndpointFields } from '../developer/webhook-endpoints';
import { failedDeliveriesHref } from './delivery-filters';
import { endpointLabel } from './endpoint-label';
import { EndpointSelect } from './EndpointSelect';
import { useDeliveryUpdates } from './insert-delivery';
import { firstFailure, localInputValue, rememberFailures } from './recover-since';
import { AppEndpointFailuresQuery, AppWebhookStateQuery, EnableWebhookMutation, RecoverWebhookDeliveriesMutation } from './webhook-health';

const RECOVER_PRESETS = [
  { label: 'webhooks.recoverLastDay', hours: 24 },
  { label: 'webhooks.recoverLastWeek', hours: 24 * 7 },
] as const;

/** Where a recovery stands: the deliveries it queued, and those whose one attempt has ended since. */
interface Recovery {
  count: number;
  /** Failed deliveries it could not queue: their bodies are no longer kept (WEBHOOK_BODY_RETENTION). */
  skipped: number;
  /** Delivery ids whose recovery attempt ended, with whether it succeeded. */
  ended: Map<string, boolean>;
}

/**
 * One app's webhook state, plainly: a DISABLED banner with Enable when no endpoint receives, one per disabled
 * endpoint with its Resume while another still does, and (in Webhook Logs) "Recover failed
 * since…" with live progress from webhookDeliveryUpdated as the queued deliveries are sent again.
 */
export function WebhookHealthPanel({ appId, recovery: showRecovery = true }: { appId: string; recovery?: boolean }) {
  const t = useT();
  const format = chartFormat(useLocale());
  const state = useQuery(AppWebhookStateQuery, { variables: { appId }, fetchPolicy: 'cache-and-network' });
  // The same numbers as the chart's default window (one request, one cache entry): they tell a failing webhook.
  const stats = useQuery(WebhookDeliveryStatsQuery, { variables: { appId, window: 'LAST_24_HOURS' }, fetchPolicy: 'cache-and-network' }).data?.webhookDeliveryStats;
  const [enable, enableState] = useMutation(EnableWebhookMutation);
  const [recover, recoverState] = useMutation(RecoverWebhookDeliveriesMutation);
  const [since, setSince] = useState('');
  const sinceId = useId();
  // '' is every enabled endpoint of the app; the choice is offered only when there is more than one.
  const [endpointId, setEndpointId] = useState('');
  // Every page with the panel reads them: a disabled endpoint is named even when the app still receives.
  const endpointsQuery = useQuery(AppWebhookEndpointsQuery, { variables: { appId } });
  const endpoints = readFragment(WebhookEndpointFields, endpointsQuery.data?.app?.webhookEndpoints ?? []);
  const [resume, resumeState] = useMutation(ResumeWebhookEndpointMutation);
  // Only where recovery is offered: the app's page reads the endpoints' whole health, and this query's
  // narrower health object would replace it in the cache.
  const failures = useQuery(AppEndpointFailuresQuery, { variables: { appId }, fetchPolicy: 'cache-and-network', skip: !showRecovery });
  const [knownFailures, setKnownFailures] = useState<ReadonlyMap<string, string>>(new Map());
  const failureList = failures.data?.app?.webhookEndpoints;
  useEffect(() => {
    if (failureList) setKnownFailures((known) => rememberFailures(known, failureList));
  }, [failureList]);
  const [resumedUrl, setResumedUrl] = useState<string | null>(null);
  const [recovery, setRecovery] = useState<Recovery | null>(null);
  const [justEnabled, setJustEnabled] = useState(false);
  // Deliveries seen queued (RETRYING) after the recovery was asked for: their next final status is the recovery's outcome.
  const queued = useRef(new Set<string>());

  useDeliveryUpdates(
    appId,
    (delivery) => {
      if (delivery.status === 'RETRYING') queued.current.add(delivery.id);
      else if ((delivery.status === 'SUCCEEDED' || delivery.status === 'FAILED') && queued.current.delete(delivery.id)) {
        setRecovery((current) => current && { ...current, ended: new Map(current.ended).set(delivery.id, delivery.status === 'SUCCEEDED') });
      }
    },
    { skip: !showRecovery || !recovery },
  );

  const disabled = state.data?.app?.webhookState === 'DISABLED';
  // Disabled on their own while another endpoint of the app still receives (the app's state stays ENABLED).
  const disabledEndpoints = disabled ? [] : endpoints.filter((endpoint) => endpoint.state === 'DISABLED');
  // The app's own state wins: stats fetched before an Enable still say DISABLED.
  const failing = !disabled && state.data?.app?.webhookState === 'ENABLED' && webhookFailing(stats);
  const totals = deliveryTotals(stats?.buckets ?? []);
  // Seen failing (or disabled) on this page and now not: the news is that it recovered, not just "enabled".
  const [wasUnhealthy, setWasUnhealthy] = useState(false);
  useEffect(() => {
    if (failing || disabled) setWasUnhealthy(true);
  }, [failing, disabled]);
  const recovered = wasUnhealthy && !failing && !disabled && state.data?.app?.webhookState === 'ENABLED' && totals.succeeded > 0;
  const problem = enableState.error ?? recoverState.error ?? resumeState.error;

  async function startRecovery() {
    const instant = new Date(since);
    if (Number.isNaN(instant.getTime())) return;
    queued.current.clear();
    setRecovery({ count: 0, skipped: 0, ended: new Map() });
    // Its failure shows from recoverState; the count is cleared meanwhile.
    const result = await recover({ variables: { appId, since: instant.toISOString(), ...(endpoints.some((endpoint) => endpoint.id === endpointId) ? { endpointId } : {}) } }).catch(
      () => undefined,
    );
    const answer = result?.data?.recoverWebhookDeliveries;
    setRecovery(answer === undefined ? null : (current) => ({ count: answer.deliveriesQueued, skipped: answer.deliveriesSkipped, ended: current?.ended ?? new Map() }));
  }

  /** Fills the field with the first failure of the endpoint(s) a recovery would go to, read afresh: a run may have begun since the page loaded. */
  async function sinceFirstFailure() {
    // A failed read leaves what the page already knows (the button was enabled from it).
    const fresh = (await failures.refetch().catch(() => undefined))?.data?.app?.webhookEndpoints ?? failureList ?? [];
    const known = rememberFailures(knownFailures, fresh);
    setKnownFailures(known);
    const first = firstFailure(fresh, known, endpointId);
    // To the minute, as the field shows it: the delivery whose attempt failed first was created a moment before that attempt.
    if (first) setSince(localInputValue(first));
  }

  const hasFirstFailure = firstFailure(failureList ?? [], knownFailures, endpointId) !== null;
  const succeeded = recovery ? [...recovery.ended.values()].filter(Boolean).length : 0;
  return (
    <section>
      {disabled ? (
        <div role="alert" className="card health-banner health-danger">
          <strong className="health-title">
            <AlertIcon /> {t('webhooks.disabledTitle')}
          </strong>
          <p>{t('webhooks.disabledText')}</p>
          <button
            type="button"
            disabled={enableState.loading}
            onClick={() =>
              // Its failure shows from enableState (problem, below).
              void enable({ variables: { appId } })
                .then(() => setJustEnabled(true))
                .catch(() => undefined)
            }
          >
            {t('webhooks.enable')}
          </button>{' '}
          <Link href={failedDeliveriesHref(appId)}>{t('insights.seeFailed')}</Link>
        </div>
      ) : disabledEndpoints.length > 0 ? (
        disabledEndpoints.map((endpoint) => (
          <div key={endpoint.id} role="alert" className="card health-banner health-danger" data-testid="endpoint-disabled-banner">
            <strong className="health-title">
              <AlertIcon /> {t('webhooks.endpointDisabledTitle', { url: endpointLabel(endpoint.url) })}
            </strong>
            <p>{t('webhooks.endpointDisabledText')}</p>
            <button
              type="button"
              disabled={resumeState.loading}
              onClick={() =>
                // Never rejects: a failed resume shows as `problem` (resumeState.error), caught here.
                void resume({ variables: { id: endpoint.id } })
                  .then(() => {
                    setResumedUrl(endpoint.url);
                    // A failed refetch shows in the query's own state (state.error).
                    void state.refetch();
                  })
                  .catch(() => undefined)
              }
            >
              {t('endpoints.resume')}
              <span className="visually-hidden"> {endpoint.url}</span>
            </button>{' '}
            <Link href={failedDeliveriesHref(appId, endpoint.id)}>{t('insights.seeFailed')}</Link>
          </div>
        ))
      ) : failing ? (
        <div role="alert" className="card health-banner health-danger">
          <strong className="health-title">
            <AlertIcon /> {t('insights.failingTitle')}
          </strong>
          <p>{t('insights.failingText', { failed: format.count(totals.failed), total: format.count(totals.total) })}</p>
          <Link href={failedDeliveriesHref(appId)}>{t('insights.seeFailed')}</Link>
        </div>
      ) : recovered ? (
        <div role="status" className="card health-banner health-ok">
          <strong className="health-title">
            <CheckIcon /> {t('insights.recoveredTitle')}
          </strong>
          <p>{t('insights.recoveredText', { succeeded: format.count(totals.succeeded), total: format.count(totals.total) })}</p>
        </div>
      ) : (
        state.data?.app && <p className="badge status-approved">{t('webhooks.enabledState')}</p>
      )}
      {justEnabled && !disabled && <p role="status">{t('webhooks.enabled')}</p>}
      {resumedUrl && <p role="status">{t('endpoints.resumed', { url: resumedUrl })}</p>}
      {problem && <ErrorMessage message={serverProblem(problem).message} />}
      {showRecovery && (
        <form
          className="recovery-form"
          onSubmit={(event) => {
            event.preventDefault();
            // Never rejects: a failed recovery shows from recoverState (problem, below).
            void startRecovery();
          }}
        >
          {/* The label has a row of its own above the field, so it wraps rather than being squeezed beside it in any language. */}
          <label htmlFor={sinceId}>{t('webhooks.recoverSince')}</label>
          <input id={sinceId} type="datetime-local" required value={since} onChange={(event) => setSince(event.target.value)} />
          <button type="submit" disabled={disabled || recoverState.loading || !since}>
            {t('webhooks.recover')}
          </button>
          {/* The usual answers, one press each: the field wants a date and time typed to the minute otherwise. */}
          <div className="recover-presets" role="group" aria-label={t('webhooks.recoverPresets')}>
            <button
              type="button"
              className="secondary"
              disabled={!hasFirstFailure}
              onClick={() =>
                // Never rejects: a failed read falls back to what the page already knows.
                void sinceFirstFailure()
              }
            >
              {t('webhooks.recoverFirstFailure')}
            </button>
            {RECOVER_PRESETS.map(({ label, hours }) => (
              <button key={label} type="button" className="secondary" onClick={() => setSince(localInputValue(new Date(Date.now() - hours * 3_600_000)))}>
                {t(label)}
              </button>
            ))}
          </div>
          <EndpointSelect
            appId={appId}
            className="recover-target"
            label={t('webhooks.recoverTo')}
            allLabel={t('webhooks.everyEnabledEndpoint')}
            value={endpointId}
            onChange={setEndpointId}
          />
          <small>{t('webhooks.recoverHint')}</small>
          {recovery && !recoverState.loading && (
            <p role="status" aria-live="polite">
              {recovery.count === 0
                ? t('webhooks.recoverNothing')
                : `${t('webhooks.recoverQueued', { count: recovery.count })} ${t('webhooks.recoverProgress', { done: Math.min(recovery.ended.size, recovery.count), count: recovery.count, succeeded })}`}
              {recovery.skipped > 0 && ` ${t('webhooks.recoverSkipped', { count: recovery.skipped })}`}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
