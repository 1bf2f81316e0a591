import { useMutation, useQuery } from '@apollo/client/react';
import { useMemo, useState } from 'react';
import { useFragment as readFragment, type FragmentType } from '../../gql';
import { useT } from '../../i18n/i18n';
import { navigate } from '../../routes';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { deliveryFilterOf, filterFormFromQuery, matchesFilter, PAGE_SIZE, queryFromFilterForm, type DeliveryFilterForm } from './delivery-filters';
import { DeliveryFilters } from './DeliveryFilters';
import { DeliveryTable } from './DeliveryTable';
import { EndpointSelect } from './EndpointSelect';
import { insertDelivery, useDeliveryUpdates } from './insert-delivery';
import { WebhookHealthChart } from '../insights/WebhookHealthChart';
import { WebhookHealthPanel } from './WebhookHealthPanel';
import { SendTestWebhookMutation, WebhookDeliveriesQuery, WebhookDeliveryFields, WebhookLogAppsQuery } from './webhook-deliveries';

export const WEBHOOK_LOGS_PATH = '/developer/webhooks';

/** `query` is the URL's query string: the filters live there so a reload or a shared link shows the same list. */
export function WebhookLogsPage({ query }: { query: string }) {
  const t = useT();
  const form = useMemo(() => filterFormFromQuery(query), [query]);
  const variables = useMemo(() => ({ filter: deliveryFilterOf(form), first: PAGE_SIZE }), [form]);
  const list = useQuery(WebhookDeliveriesQuery, { variables, fetchPolicy: 'cache-and-network' });
  const [loadingMore, setLoadingMore] = useState(false);
  // Where Send test event goes: the endpoint the list is filtered to, unless another is chosen.
  const [testTarget, setTestTarget] = useState<{ appId: string; endpointId: string } | null>(null);
  const testEndpointId = testTarget?.appId === form.appId ? testTarget.endpointId : form.endpointId;
  // The filters' query: the same cache entry, no second request.
  const apps = useQuery(WebhookLogAppsQuery).data?.myApps;
  // With one app chosen every row would name the same app; with one app in all, too.
  const appsOnRows = !form.appId && apps && apps.length > 1 ? apps : undefined;

  useDeliveryUpdates(form.appId || undefined, (delivery, update, cache) => {
    if (matchesFilter(delivery, variables.filter)) insertDelivery(cache, variables, update);
  });

  const [sendTest, sendTestState] = useMutation(SendTestWebhookMutation, {
    // Asked for explicitly, so it shows even when the filters would hide it.
    update: (cache, { data }) => {
      if (data) insertDelivery(cache, variables, data.sendTestWebhook);
    },
  });
  const sendTestProblem = sendTestState.error ? serverProblem(sendTestState.error) : null;

  function changeFilters(next: DeliveryFilterForm) {
    // Each change is a history entry, so Back returns to the previous filters.
    navigate(`${WEBHOOK_LOGS_PATH}${queryFromFilterForm(next)}`);
  }

  async function loadMore() {
    const endCursor = list.data?.webhookDeliveries.pageInfo.endCursor;
    if (!endCursor) return;
    setLoadingMore(true);
    try {
      await list.fetchMore({
        variables: { after: endCursor },
        updateQuery: (previous, { fetchMoreResult }) => {
          const idOf = (edge: { node: FragmentType<typeof WebhookDeliveryFields> }) => readFragment(WebhookDeliveryFields, edge.node).id;
          const known = new Set(previous.webhookDeliveries.edges.map(idOf));
          return {
            webhookDeliveries: {
              ...fetchMoreResult.webhookDeliveries,
              edges: [...previous.webhookDeliveries.edges, ...fetchMoreResult.webhookDeliveries.edges.filter((edge) => !known.has(idOf(edge)))],
            },
          };
        },
      });
    } finally {
      setLoadingMore(false);
    }
  }

  const connection = list.data?.webhookDeliveries;
  return (
    <>
      <div className="page-head">
        <h1>{t('webhooks.heading')}</h1>
        {form.appId && (
          <div className="send-test">
            <EndpointSelect
              appId={form.appId}
              label={t('webhooks.sendTo')}
              allLabel={t('webhooks.everyEndpoint')}
              value={testEndpointId}
              onChange={(endpointId) => setTestTarget({ appId: form.appId, endpointId })}
            />
            <button
              type="button"
              // Its failure shows from sendTestState (sendTestProblem).
              onClick={() => void sendTest({ variables: { appId: form.appId, ...(testEndpointId ? { endpointId: testEndpointId } : {}) } }).catch(() => undefined)}
              disabled={sendTestState.loading}
            >
              {t('webhooks.sendTest')}
            </button>
          </div>
        )}
      </div>
      {!form.appId && <p className="hint">{t('webhooks.sendTestHint')}</p>}
      {sendTestProblem && <ErrorMessage message={sendTestProblem.field === 'webhookUrl' ? t('webhooks.noWebhookUrl') : sendTestProblem.message} />}
      {form.appId && <WebhookHealthPanel appId={form.appId} />}
      <WebhookHealthChart appId={form.appId || undefined} />
      <DeliveryFilters form={form} onChange={changeFilters} />
      {list.error && !connection ? (
        // A retry that fails shows as the query's error again.
        <ErrorMessage message={serverProblem(list.error).message} onRetry={() => void list.refetch()} />
      ) : !connection ? (
        <p aria-live="polite">{t('loading')}</p>
      ) : connection.edges.length === 0 ? (
        <EmptyLog
          form={form}
          onClearFilters={() => changeFilters({ ...filterFormFromQuery(''), appId: form.appId })}
          onSendTest={() =>
            // Its failure shows from sendTestState (sendTestProblem), as the heading's button's does.
            void sendTest({ variables: { appId: form.appId, ...(testEndpointId ? { endpointId: testEndpointId } : {}) } }).catch(() => undefined)
          }
          sending={sendTestState.loading}
        />
      ) : (
        <DeliveryTable deliveries={connection.edges.map((edge) => edge.node)} apps={appsOnRows} />
      )}
      {connection?.pageInfo.hasNextPage && (
        // A page that fails to load leaves the list as it was, with its button to try again.
        <button type="button" className="secondary" onClick={() => void loadMore()} disabled={loadingMore}>
          {t('webhooks.loadMore')}
        </button>
      )}
    </>
  );
}

/**
 * An empty log with the next step for why it is empty: filters that hide every delivery can be cleared
 * (the app stays chosen); an app with none yet can be sent a test event; with no app chosen, its page is
 * where one is sent from.
 */
function EmptyLog({ form, onClearFilters, onSendTest, sending }: { form: DeliveryFilterForm; onClearFilters: () => void; onSendTest: () => void; sending: boolean }) {
  const t = useT();
  const narrowed = (['endpointId', 'status', 'event', 'purchaseId', 'since', 'until'] as const).some((field) => form[field].trim() !== '');
  if (narrowed) {
    return (
      <p>
        {t('webhooks.empty')}{' '}
        <button type="button" className="secondary" onClick={onClearFilters}>
          {t('webhooks.clearFilters')}
        </button>
      </p>
    );
  }
  if (form.appId) {
    return (
      <p>
        {t('webhooks.emptyApp')}{' '}
        <button type="button" className="secondary" onClick={onSendTest} disabled={sending}>
          {t('webhooks.sendFirstTest')}
        </button>
      </p>
    );
  }
  return (
    <p>
      {t('webhooks.emptyAll')} <Link href="/developer">{t('webhooks.emptyAllNext')}</Link>
    </p>
  );
}
