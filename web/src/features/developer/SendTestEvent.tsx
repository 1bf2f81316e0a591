import { useMutation, useQuery } from '@apollo/client/react';
import { useEffect, useId, useState } from 'react';
import { graphql } from '../../gql';
import type { WebhookEventType } from '../../gql/graphql';
import { useT } from '../../i18n/i18n';
import { webhookDeliveryPath } from '../../routes';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem, useProblemText } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { EndpointSelect } from '../webhook-logs/EndpointSelect';
import { LastResponse } from '../webhook-logs/last-response';
import { eventWireName, SUBSCRIBABLE_EVENTS } from './app-rules';

export const SendAppTestEventMutation = graphql(`
  mutation SendAppTestEvent($appId: ID!, $event: WebhookEventType, $endpointId: ID) {
    sendTestWebhook(appId: $appId, event: $event, endpointId: $endpointId) {
      id
      eventName
      status
    }
  }
`);

/** The sent event's delivery, read until it has ended: its one attempt's answer is what the developer wants to see. */
const TestDeliveryOutcomeQuery = graphql(`
  query TestDeliveryOutcome($id: ID!) {
    webhookDelivery(id: $id) {
      id
      status
      lastAttempt {
        statusCode
        error
        durationMs
        outcome
      }
    }
  }
`);
/** A test event is sent once, within the request timeout: a second's poll sees it end without a subscription of its own. */
const OUTCOME_POLL_MS = 1000;

// app.test first: the default, and the only one that imitates no business event.
const TEST_EVENTS: readonly WebhookEventType[] = ['APP_TEST', ...SUBSCRIBABLE_EVENTS];

/**
 * On the app's own page, so a developer finds it without first choosing the app in Webhook Logs'
 * filters; any event can be imitated, whatever the app subscribes to.
 */
export function SendTestEvent({ appId, hasWebhookUrl }: { appId: string; hasWebhookUrl: boolean }) {
  const t = useT();
  const problemText = useProblemText();
  const headingId = useId();
  const pickerId = useId();
  const [event, setEvent] = useState<WebhookEventType>('APP_TEST');
  const [endpointId, setEndpointId] = useState('');
  const [send, { data, loading, error, reset }] = useMutation(SendAppTestEventMutation);
  const problem = error ? serverProblem(error) : null;
  const sent = data?.sendTestWebhook;
  const outcome = useQuery(TestDeliveryOutcomeQuery, { variables: { id: sent?.id ?? '' }, skip: !sent, fetchPolicy: 'network-only', pollInterval: OUTCOME_POLL_MS });
  const delivery = outcome.data?.webhookDelivery;
  const ended = delivery?.status === 'SUCCEEDED' || delivery?.status === 'FAILED';
  const { stopPolling } = outcome;
  useEffect(() => {
    if (ended) stopPolling();
  }, [ended, stopPolling]);

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('testEvent.heading')}</h2>
      <p className="hint">{t('testEvent.lede')}</p>
      {!hasWebhookUrl && <p>{t('testEvent.noWebhook')}</p>}
      <div className="field">
        <label htmlFor={pickerId}>{t('testEvent.event')}</label>
        <select
          id={pickerId}
          value={event}
          onChange={(e) => {
            setEvent(e.target.value as WebhookEventType);
            reset();
          }}
        >
          {TEST_EVENTS.map((option) => (
            <option key={option} value={option}>
              {eventWireName(option)}
            </option>
          ))}
        </select>
      </div>
      {hasWebhookUrl && (
        <EndpointSelect
          appId={appId}
          label={t('webhooks.sendTo')}
          allLabel={t('webhooks.everyEndpoint')}
          value={endpointId}
          onChange={(chosen) => {
            setEndpointId(chosen);
            reset();
          }}
        />
      )}
      <div className="actions">
        <button
          type="button"
          disabled={loading || !hasWebhookUrl}
          // Its failure shows from the mutation's error below.
          onClick={() => void send({ variables: { appId, event, ...(endpointId ? { endpointId } : {}) } }).catch(() => undefined)}
        >
          {loading ? t('testEvent.sending') : t('webhooks.sendTest')}
        </button>
      </div>
      {sent && (
        <p role="status">
          {t('testEvent.sent', { event: sent.eventName })} <Link href={webhookDeliveryPath(sent.id)}>{t('testEvent.open', { id: sent.id })}</Link>
          {ended && (
            <span data-testid="test-event-response">
              {' '}
              {t('testEvent.response')} <LastResponse attempt={delivery.lastAttempt} />
            </span>
          )}
        </p>
      )}
      {problem && <ErrorMessage message={problem.field === 'webhookUrl' ? t('webhooks.noWebhookUrl') : problemText(problem)} />}
    </section>
  );
}
