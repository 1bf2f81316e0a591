import { useFragment, type FragmentType } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';
import { webhookDeliveryPath } from '../../routes';
import { Link } from '../../ui/Link';
import { DeliveryStatusBadge } from './DeliveryStatusBadge';
import { WebhookDeliveryFields } from './webhook-deliveries';

export function DeliveryTable(props: { deliveries: readonly FragmentType<typeof WebhookDeliveryFields>[] }) {
  const t = useT();
  const format = useFormat();
  const timeOf = (iso: string) => <time dateTime={iso}>{format.instant(iso)}</time>;
  const deliveries = useFragment(WebhookDeliveryFields, props.deliveries);
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t('webhooks.tableLabel')}>
      <table className="delivery-table">
        <thead>
          <tr>
            <th scope="col">{t('webhooks.created')}</th>
            <th scope="col">{t('webhooks.event')}</th>
            <th scope="col">{t('webhooks.purchaseId')}</th>
            <th scope="col">{t('webhooks.statusFilter')}</th>
            <th scope="col">{t('webhooks.attempts')}</th>
            <th scope="col">{t('webhooks.nextAttempt')}</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid={`delivery-${delivery.id}`} className={delivery.status === 'FAILED' ? 'delivery-row-failed' : undefined}>
              <td>
                {/* The visible time starts the link's name (WCAG 2.5.3); the hidden words say where it leads. */}
                <Link href={webhookDeliveryPath(delivery.id)}>
                  {timeOf(delivery.createdAt)}
                  <span className="visually-hidden"> {t('webhooks.open', { id: delivery.id })}</span>
                </Link>
              </td>
              <td>{delivery.eventName}</td>
              <td className="mono">{delivery.purchaseId}</td>
              <td>
                <DeliveryStatusBadge status={delivery.status} />
              </td>
              <td>{delivery.attemptCount}</td>
              <td>{delivery.status === 'RETRYING' && delivery.nextAttemptAt ? timeOf(delivery.nextAttemptAt) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
