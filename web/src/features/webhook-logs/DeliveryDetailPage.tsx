import { useMutation, useQuery } from '@apollo/client/react';
import { useFragment as readFragment } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { DeliveryAttemptFields, DeliveryAttempts } from './DeliveryAttempts';
import { DeliveryLocalForwards } from './DeliveryLocalForwards';
import { DeliveryPayload } from './DeliveryPayload';
import { DeliveryStatusBadge } from './DeliveryStatusBadge';
import { EndpointStateBadge } from '../developer/EndpointStateBadge';
import { useDeliveryUpdates } from './insert-delivery';
import { RedeliverWebhookMutation, WebhookDeliveryFields, WebhookDeliveryQuery } from './webhook-deliveries';
import { WEBHOOK_LOGS_PATH } from './WebhookLogsPage';

export function DeliveryDetailPage({ deliveryId }: { deliveryId: string }) {
  const t = useT();
  const format = useFormat();
  const detail = useQuery(WebhookDeliveryQuery, { variables: { id: deliveryId }, fetchPolicy: 'cache-and-network' });
  // The mutation returns the delivery with its attempts; the normalised cache puts the MANUAL one on screen.
  const [redeliver, redeliverState] = useMutation(RedeliverWebhookMutation);
  const found = detail.data?.webhookDelivery;
  // The attempt Redeliver made: the newest in its answer. It is marked on the page and takes the focus.
  const redeliveredAttempt = redeliverState.data?.redeliverWebhook
    ? Math.max(0, ...readFragment(DeliveryAttemptFields, redeliverState.data.redeliverWebhook.attempts).map((attempt) => attempt.number))
    : null;
  const delivery = found && {
    ...readFragment(WebhookDeliveryFields, found),
    heldReason: found.heldReason,
    payload: found.payload,
    payloadKept: found.payloadKept,
    attempts: found.attempts,
  };
  // The app's feed carries every delivery's changes without their attempts: asking each one for its
  // attempts would cost the server a query per change of any delivery of the app, per open page. This
  // page fetches its own delivery again, attempts included, only when that one changes.
  useDeliveryUpdates(
    delivery?.appId,
    (changed) => {
      // A refresh that fails shows as the query's error.
      if (changed.id === deliveryId) void detail.refetch();
    },
    { skip: !delivery },
  );

  // A retry that fails shows as the query's error again.
  if (detail.error && !delivery) return <ErrorMessage message={serverProblem(detail.error).message} onRetry={() => void detail.refetch()} />;
  if (!detail.data) return <p aria-live="polite">{t('loading')}</p>;
  if (!delivery)
    return (
      <section className="card">
        <p>{t('webhooks.notFound')}</p>
        <Link href={WEBHOOK_LOGS_PATH}>{t('webhooks.back')}</Link>
      </section>
    );

  return (
    <>
      <p>
        <Link href={`${WEBHOOK_LOGS_PATH}?appId=${encodeURIComponent(delivery.appId)}`}>{t('webhooks.back')}</Link>
      </p>
      <div className="page-head">
        <h1>
          {delivery.eventName} <DeliveryStatusBadge status={delivery.status} />
        </h1>
        {/* Without its body there is nothing to send: the server would refuse (CONFLICT), so say why here instead. */}
        <button
          type="button"
          // Its failure shows from redeliverState below.
          onClick={() => void redeliver({ variables: { deliveryId: delivery.id } }).catch(() => undefined)}
          disabled={redeliverState.loading || !delivery.payloadKept}
          aria-describedby={delivery.payloadKept ? undefined : 'delivery-redeliver-unavailable'}
        >
          {t('webhooks.redeliver')}
        </button>
      </div>
      {/* Under the heading: with several endpoints, where it went is the first thing to know about a delivery. */}
      <p className="delivery-endpoint-line">
        {t('webhooks.endpoint')}:{' '}
        <span data-testid="delivery-endpoint">
          {delivery.endpoint ? (
            <>
              <span className="mono">{delivery.endpoint.url}</span> <EndpointStateBadge state={delivery.endpoint.state} />
            </>
          ) : (
            t('webhooks.deletedEndpoint')
          )}
        </span>
      </p>
      {!delivery.payloadKept && (
        <p id="delivery-redeliver-unavailable" className="hint">
          {t('webhooks.redeliverNeedsBody')}
        </p>
      )}
      {redeliverState.error && <ErrorMessage message={serverProblem(redeliverState.error).message} />}
      <span className="visually-hidden" aria-live="polite">
        {redeliverState.data ? t('webhooks.redelivered') : ''}
      </span>
      {/* First the attempts: how the receiver answered is what a person opens a delivery for. */}
      <section aria-labelledby="delivery-attempts-heading">
        <h2 id="delivery-attempts-heading">{t('webhooks.attempts')}</h2>
        <DeliveryAttempts attempts={delivery.attempts} highlight={redeliveredAttempt} />
      </section>
      <dl className="facts">
        <dt>{t('webhooks.deliveryId')}</dt>
        <dd className="mono">{delivery.id}</dd>
        <dt>{t('webhooks.purchaseId')}</dt>
        <dd className="mono">{delivery.purchaseId}</dd>
        <dt>{t('webhooks.created')}</dt>
        <dd>
          <time dateTime={delivery.createdAt}>{format.instant(delivery.createdAt)}</time>
        </dd>
        {delivery.heldReason && (
          <>
            <dt>{t('webhooks.heldReason')}</dt>
            <dd role="note">{delivery.heldReason}</dd>
          </>
        )}
        {delivery.nextAttemptAt && (
          <>
            <dt>{t('webhooks.nextAttempt')}</dt>
            <dd>
              <time dateTime={delivery.nextAttemptAt}>{format.instant(delivery.nextAttemptAt)}</time>
            </dd>
          </>
        )}
      </dl>
      {delivery.payloadKept ? (
        <DeliveryPayload payload={delivery.payload} />
      ) : (
        <section aria-labelledby="delivery-payload-heading">
          <h2 id="delivery-payload-heading">{t('webhooks.payload')}</h2>
          <p data-testid="delivery-payload-not-kept">{t('webhooks.bodyNotKept')}</p>
        </section>
      )}
      {/* After the real attempts, in a section of its own: these answers came from the developer's machine, not the webhook URL. */}
      <DeliveryLocalForwards deliveryId={delivery.id} />
    </>
  );
}
