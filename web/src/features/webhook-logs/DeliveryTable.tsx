import { Fragment } from 'react';
import { useFragment, type FragmentType } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';
import { webhookDeliveryPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { Link } from '../../ui/Link';
import { DeliveryStatusBadge } from './DeliveryStatusBadge';
import { endpointLabel } from './endpoint-label';
import { LastResponse } from './last-response';
import { WebhookDeliveryFields } from './webhook-deliveries';

/** An app as a row names it. */
export interface LoggedApp {
  id: string;
  name: string;
  iconUrl: string;
}

/**
 * The log: a table on a wide screen, a list of cards on a phone (styles.css turns each row into a card,
 * status first). `apps` is given when the rows may belong to more than one app: each row then names its app.
 */
export function DeliveryTable(props: { deliveries: readonly FragmentType<typeof WebhookDeliveryFields>[]; apps?: readonly LoggedApp[] }) {
  const t = useT();
  const format = useFormat();
  const timeOf = (iso: string) => <time dateTime={iso}>{format.instant(iso)}</time>;
  const deliveries = useFragment(WebhookDeliveryFields, props.deliveries);
  const appsById = new Map(props.apps?.map((app) => [app.id, app]));
  // Rows of several apps or endpoints carry more text than 1280 px holds on one line: only then may ids, times,
  // names and column names break (between their parts); one endpoint's log keeps every id and name whole.
  const crowded = props.apps !== undefined || new Set(deliveries.map((delivery) => delivery.endpointId)).size > 1;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t('webhooks.tableLabel')}>
      <table className={crowded ? 'delivery-table delivery-table-crowded' : 'delivery-table'}>
        <thead>
          <tr>
            <th scope="col">{t('webhooks.created')}</th>
            {props.apps && <th scope="col">{t('webhooks.app')}</th>}
            <th scope="col">{t('webhooks.event')}</th>
            <th scope="col">{t('webhooks.endpoint')}</th>
            <th scope="col">{t('webhooks.statusFilter')}</th>
            <th scope="col">{t('webhooks.lastResponse')}</th>
            <th scope="col">{t('webhooks.attempts')}</th>
            <th scope="col">{t('webhooks.nextAttempt')}</th>
            <th scope="col">{t('webhooks.purchaseId')}</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => {
            const app = appsById.get(delivery.appId);
            return (
              <tr key={delivery.id} data-testid={`delivery-${delivery.id}`} className={delivery.status === 'FAILED' ? 'delivery-row-failed' : undefined}>
                <td className="delivery-created">
                  {/* The visible time starts the link's name (WCAG 2.5.3); the hidden words say where it leads. */}
                  <Link href={webhookDeliveryPath(delivery.id)}>
                    {timeOf(delivery.createdAt)}
                    <span className="visually-hidden"> {t('webhooks.open', { id: delivery.id })}</span>
                  </Link>
                </td>
                {props.apps && (
                  <td className="delivery-app">
                    <span className="app-chip" data-testid="delivery-app">
                      <AppIcon src={app?.iconUrl ?? ''} name={app?.name ?? delivery.appId} size={20} />
                      <span className="app-chip-name">{app?.name ?? delivery.appId}</span>
                    </span>
                  </td>
                )}
                <td className="delivery-event">{delivery.eventName}</td>
                {/* The full URL is in the title: host and path tell an app's endpoints apart at a glance. */}
                <td className="delivery-endpoint" data-testid="delivery-endpoint" data-label={t('webhooks.endpoint')}>
                  {delivery.endpoint ? (
                    <span className="mono" title={delivery.endpoint.url}>
                      {/* It may break before each path segment (never inside a name), so it takes two lines only where the table needs the room. */}
                      {endpointLabel(delivery.endpoint.url)
                        .split(/(?=\/)/)
                        .map((part, index) => (
                          <Fragment key={index}>
                            {index > 0 && <wbr />}
                            {part}
                          </Fragment>
                        ))}
                    </span>
                  ) : (
                    <span className="hint">{t('webhooks.endpointDeleted')}</span>
                  )}
                </td>
                <td className="delivery-status-cell">
                  <DeliveryStatusBadge status={delivery.status} />
                </td>
                <td className="delivery-response" data-testid="delivery-last-response">
                  <LastResponse attempt={delivery.lastAttempt} />
                </td>
                <td className="delivery-attempt-count" data-label={t('webhooks.attempts')}>
                  {delivery.attemptCount}
                </td>
                <td className="delivery-next" data-label={delivery.status === 'RETRYING' && delivery.nextAttemptAt ? t('webhooks.nextAttempt') : undefined}>
                  {delivery.status === 'RETRYING' && delivery.nextAttemptAt ? timeOf(delivery.nextAttemptAt) : ''}
                </td>
                <td className="mono delivery-purchase">
                  {/* In a crowded log it may break after each hyphen (APP-<ms>-<suffix>), so the table fits 1280 px. */}
                  {(crowded ? delivery.purchaseId.split(/(?<=-)/) : [delivery.purchaseId]).map((part, index) => (
                    <Fragment key={index}>
                      {index > 0 && <wbr />}
                      {part}
                    </Fragment>
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
