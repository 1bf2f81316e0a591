import { useT } from '../../i18n/i18n';
import type { DeliveryStatus } from '../../gql/graphql';

// The word and a mark carry the status; colour only reinforces it.
const MARKS: Record<DeliveryStatus, string> = { PENDING: '…', RETRYING: '↻', SUCCEEDED: '✓', FAILED: '✕' };

export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  const t = useT();
  return (
    <span className={`badge delivery-${status.toLowerCase()}`} data-testid="delivery-status">
      <span aria-hidden="true">{MARKS[status]} </span>
      {t(`webhooks.status.${status}`)}
    </span>
  );
}
