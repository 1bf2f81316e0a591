import { useQuery } from '@apollo/client/react';
import { useT } from '../../i18n/i18n';
import { useFragment as readFragment } from '../../gql';
import { eventWireName } from '../developer/app-rules';
import { AppWebhookEndpointsQuery, WebhookEndpointFields } from '../developer/webhook-endpoints';
import { endpointLabel } from './endpoint-label';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS, type DeliveryFilterForm } from './delivery-filters';
import { WebhookLogAppsQuery } from './webhook-deliveries';

interface DeliveryFiltersProps {
  form: DeliveryFilterForm;
  onChange: (form: DeliveryFilterForm) => void;
}

export function DeliveryFilters({ form, onChange }: DeliveryFiltersProps) {
  const t = useT();
  const apps = useQuery(WebhookLogAppsQuery).data?.myApps ?? [];
  const commitPurchaseId = (value: string) => {
    if (value.trim() !== form.purchaseId) onChange({ ...form, purchaseId: value.trim() });
  };
  const endpointsData = useQuery(AppWebhookEndpointsQuery, { variables: { appId: form.appId }, skip: !form.appId }).data;
  const endpoints = readFragment(WebhookEndpointFields, endpointsData?.app?.webhookEndpoints ?? []);
  const set = (field: keyof DeliveryFilterForm) => (event: { target: { value: string } }) => onChange({ ...form, [field]: event.target.value });
  return (
    <form className="delivery-filters" aria-label={t('webhooks.filters')} onSubmit={(event) => event.preventDefault()}>
      <label>
        {t('webhooks.app')}
        {/* Another app's endpoint would match nothing: choosing an app starts with all of its endpoints. */}
        <select value={form.appId} onChange={(event) => onChange({ ...form, appId: event.target.value, endpointId: '' })}>
          <option value="">{t('webhooks.allApps')}</option>
          {apps.map((app) => (
            <option key={app.id} value={app.id}>
              {app.name}
            </option>
          ))}
          {/* An app from the URL that is not among yours (an admin's view) stays selectable. */}
          {form.appId && !apps.some((app) => app.id === form.appId) && <option value={form.appId}>{form.appId}</option>}
        </select>
      </label>
      {/* With one endpoint the app's filter already says it; a deleted endpoint chosen by a link stays selectable. */}
      {form.appId && (endpoints.length > 1 || (form.endpointId && !endpoints.some((endpoint) => endpoint.id === form.endpointId))) && (
        <label>
          {t('webhooks.endpoint')}
          <select value={form.endpointId} onChange={set('endpointId')}>
            <option value="">{t('webhooks.allEndpoints')}</option>
            {endpoints.map((endpoint) => (
              <option key={endpoint.id} value={endpoint.id}>
                {endpoint.description ? `${endpoint.description} (${endpointLabel(endpoint.url)})` : endpointLabel(endpoint.url)}
              </option>
            ))}
            {form.endpointId && !endpoints.some((endpoint) => endpoint.id === form.endpointId) && <option value={form.endpointId}>{form.endpointId}</option>}
          </select>
        </label>
      )}
      <label>
        {t('webhooks.statusFilter')}
        <select value={form.status} onChange={set('status')}>
          <option value="">{t('webhooks.any')}</option>
          {DELIVERY_STATUSES.map((status) => (
            <option key={status} value={status}>
              {t(`webhooks.status.${status}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('webhooks.event')}
        <select value={form.event} onChange={set('event')}>
          <option value="">{t('webhooks.any')}</option>
          {WEBHOOK_EVENTS.map((event) => (
            // The value stays the API's enum (it is in the URL); people read what happened, and the wire name they code against.
            <option key={event} value={event}>
              {t('webhooks.eventOption', { label: t(`event.${event}`), wire: eventWireName(event) })}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('webhooks.purchaseId')}
        {/* Applied on Enter or on leaving the field: a query per keystroke would flood the server and the history. */}
        <input
          type="search"
          key={form.purchaseId}
          defaultValue={form.purchaseId}
          onBlur={(event) => commitPurchaseId(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') commitPurchaseId(event.currentTarget.value);
          }}
        />
      </label>
      <label>
        {t('webhooks.since')}
        <input type="datetime-local" value={form.since} onChange={set('since')} />
      </label>
      <label>
        {t('webhooks.until')}
        <input type="datetime-local" value={form.until} onChange={set('until')} />
      </label>
    </form>
  );
}
