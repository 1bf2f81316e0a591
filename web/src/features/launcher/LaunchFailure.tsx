import { useEffect, useRef } from 'react';

interface LaunchFailureProps {
  message: string;
  onRetry: () => void;
  offerSignIn?: boolean;
}

export function LaunchFailure({ message, onRetry, offerSignIn = false }: LaunchFailureProps) {
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
          Retry
        </button>
        {offerSignIn && <a href="/">Sign in</a>}
      </div>
    </div>
  );
}
