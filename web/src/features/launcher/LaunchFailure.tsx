import { useEffect, useRef } from 'react';
import { useT } from '../../i18n/i18n';

interface LaunchFailureProps {
  message: string;
  onRetry: () => void;
  offerSignIn?: boolean;
}

export function LaunchFailure({ message, onRetry, offerSignIn = false }: LaunchFailureProps) {
  const t = useT();
  const retryButton = useRef<HTMLButtonElement>(null);

  // The frame that may have held focus is gone; keyboard users land on what they can do next.
  useEffect(() => {
    retryButton.current?.focus();
  }, []);

  return (
    <div className="launcher-failure card" role="alert">
      <p>{message}</p>
      <div className="launcher-actions">
        <button ref={retryButton} type="button" onClick={onRetry}>
          {t('launcher.retry')}
        </button>
        {offerSignIn && <a href="/">{t('launcher.signIn')}</a>}
      </div>
    </div>
  );
}
