import { useQuery } from '@apollo/client/react';
import { graphql } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';

export const WebhookLocalForwardsQuery = graphql(`
  query WebhookLocalForwards($deliveryId: ID!) {
    webhookLocalForwards(deliveryId: $deliveryId) {
      id
      createdAt
      statusCode
      durationMs
      error
    }
  }
`);

/**
 * What `plaza listen` got from the developer's own receiver for this delivery. Shown in a section and a
 * table of its own, apart from the attempt cards: a local forward never changes the delivery's status.
 */
export function DeliveryLocalForwards({ deliveryId }: { deliveryId: string }) {
  const t = useT();
  const format = useFormat();
  const { data, error, refetch } = useQuery(WebhookLocalForwardsQuery, { variables: { deliveryId }, fetchPolicy: 'cache-and-network' });
  const forwards = data?.webhookLocalForwards;
  return (
    <section className="local-forwards" data-testid="local-forwards">
      <h2 id="local-forwards-heading">{t('webhooks.localForwards')}</h2>
      <p className="hint">{t('webhooks.localForwardsHint')}</p>
      {error && !forwards ? (
        // A retry that fails shows as the query's error again.
        <ErrorMessage message={serverProblem(error).message} onRetry={() => void refetch()} />
      ) : !forwards ? (
        <p aria-live="polite">{t('loading')}</p>
      ) : forwards.length === 0 ? (
        <p>{t('webhooks.noLocalForwards')}</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="local-forwards-heading">
          <table className="delivery-table">
            <thead>
              <tr>
                <th scope="col">{t('webhooks.localForwardAt')}</th>
                <th scope="col">{t('webhooks.localForwardStatus')}</th>
                <th scope="col">{t('webhooks.duration')}</th>
                <th scope="col">{t('webhooks.error')}</th>
              </tr>
            </thead>
            <tbody>
              {forwards.map((forward) => (
                <tr key={forward.id} data-testid={`local-forward-${forward.id}`}>
                  <td>
                    <time dateTime={forward.createdAt}>{format.instant(forward.createdAt)}</time>
                  </td>
                  <td>{forward.statusCode ?? t('webhooks.localForwardNoAnswer')}</td>
                  <td>{t('webhooks.durationMs', { ms: forward.durationMs })}</td>
                  <td>{forward.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
