import { useT } from '../../i18n/i18n';
import { AlertIcon } from '../../ui/icons';

/** An endpoint's state as the app page and a delivery's page show it: disabled in the danger colour, with an icon, as a failing webhook is. */
export function EndpointStateBadge({ state }: { state: string }) {
  const t = useT();
  if (state === 'DISABLED')
    return (
      <span className="badge webhook-failing">
        <AlertIcon /> {t('endpoints.state.DISABLED')}
      </span>
    );
  return (
    <span className={`badge ${state === 'ENABLED' ? 'status-approved' : 'status-pending_review'}`}>
      {t(state === 'ENABLED' ? 'endpoints.state.ENABLED' : 'endpoints.state.PAUSED')}
    </span>
  );
}
