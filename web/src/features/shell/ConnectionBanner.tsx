import { useEffect, useState } from 'react';
import { useConnection } from '../../connection';
import { useT } from '../../i18n/i18n';
import { AlertIcon, CheckIcon } from '../../ui/icons';

/** How long "reachable again" stays: long enough to read, then the page is just the page. */
const BACK_SHOWN_MS = 6000;

/**
 * Says on every page, in the person's language, when Plaza cannot be reached and that the page keeps
 * trying; on a live page, that its live updates are paused and come back by themselves (rather
 * than a bare "Failed to fetch"). The live region is always there, so the change is announced.
 */
export function ConnectionBanner() {
  const t = useT();
  const connection = useConnection();
  const [backShown, setBackShown] = useState(false);
  useEffect(() => {
    if (connection.returns === 0) return;
    setBackShown(true);
    const timer = setTimeout(() => setBackShown(false), BACK_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [connection.returns]);

  return (
    <div className="connection-region" role="status" aria-live="polite">
      {!connection.reachable || connection.livePaused ? (
        <p className="connection-banner connection-lost" data-testid="connection-banner">
          <AlertIcon /> {!connection.reachable && <strong>{t('connection.lost')}</strong>}
          {connection.livePaused && <span> {t('connection.livePaused')}</span>}
        </p>
      ) : (
        backShown && (
          <p className="connection-banner connection-back" data-testid="connection-banner">
            <CheckIcon /> {t('connection.back')}
          </p>
        )
      )}
    </div>
  );
}
