import type { DeliveryStatus, WebhookDeliveryFilter, WebhookEventType } from '../../gql/graphql';

export const DELIVERY_STATUSES: DeliveryStatus[] = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'];
export const WEBHOOK_EVENTS: WebhookEventType[] = ['APP_PURCHASED', 'APP_INSTALLED', 'APP_UNINSTALLED', 'APP_REFUNDED', 'APP_TEST'];
export const PAGE_SIZE = 25;

/** What the filter form shows; since/until keep the datetime-local text so the inputs round-trip through the URL. */
export interface DeliveryFilterForm {
  appId: string;
  /** Only with appId: an endpoint belongs to one app. */
  endpointId: string;
  status: string;
  event: string;
  purchaseId: string;
  since: string;
  until: string;
}

const FIELDS: (keyof DeliveryFilterForm)[] = ['appId', 'endpointId', 'status', 'event', 'purchaseId', 'since', 'until'];

export function filterFormFromQuery(search: string): DeliveryFilterForm {
  const query = new URLSearchParams(search);
  const form = {} as DeliveryFilterForm;
  for (const field of FIELDS) form[field] = query.get(field) ?? '';
  return form;
}

export function queryFromFilterForm(form: DeliveryFilterForm): string {
  const query = new URLSearchParams();
  for (const field of FIELDS) if (form[field].trim()) query.set(field, form[field].trim());
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** A datetime-local value is in the viewer's time zone; the server wants an instant. */
function instantOf(localDateTime: string, extraMs = 0): string | undefined {
  if (!localDateTime) return undefined;
  const instant = new Date(localDateTime);
  return Number.isNaN(instant.getTime()) ? undefined : new Date(instant.getTime() + extraMs).toISOString();
}

/** Only the filters that are set, and only values the schema accepts (a hand-edited URL may hold anything). */
export function deliveryFilterOf(form: DeliveryFilterForm): WebhookDeliveryFilter {
  const filter: WebhookDeliveryFilter = {};
  if (form.appId) filter.appId = form.appId;
  if (form.appId && form.endpointId) filter.endpointId = form.endpointId;
  if (DELIVERY_STATUSES.includes(form.status as DeliveryStatus)) filter.status = form.status as DeliveryStatus;
  if (WEBHOOK_EVENTS.includes(form.event as WebhookEventType)) filter.event = form.event as WebhookEventType;
  if (form.purchaseId.trim()) filter.purchaseId = form.purchaseId.trim();
  const since = instantOf(form.since);
  if (since) filter.since = since;
  // A datetime-local value names a whole minute; "until 10:00" should include what happened during 10:00.
  const until = instantOf(form.until, /T\d\d:\d\d$/.test(form.until) ? 59_999 : 0);
  if (until) filter.until = until;
  return filter;
}

interface DeliverySummary {
  appId: string;
  endpointId: string;
  status: string;
  event: string;
  purchaseId: string;
  createdAt: string;
}

/** Whether a delivery that arrived live belongs in the list the viewer is looking at. */
export function matchesFilter(delivery: DeliverySummary, filter: WebhookDeliveryFilter): boolean {
  const created = Date.parse(delivery.createdAt);
  return (
    (!filter.appId || delivery.appId === filter.appId) &&
    (!filter.endpointId || delivery.endpointId === filter.endpointId) &&
    (!filter.status || delivery.status === filter.status) &&
    (!filter.event || delivery.event === filter.event) &&
    (!filter.purchaseId || delivery.purchaseId === filter.purchaseId) &&
    (!filter.since || created >= Date.parse(filter.since)) &&
    (!filter.until || created <= Date.parse(filter.until))
  );
}

/** Webhook Logs filtered to one app's failed deliveries: where the webhook state banners link. */
export function failedDeliveriesHref(appId: string, endpointId = ''): string {
  return `/developer/webhooks${queryFromFilterForm({ ...filterFormFromQuery(''), appId, endpointId, status: 'FAILED' })}`;
}
