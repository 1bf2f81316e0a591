import { useT } from '../i18n/i18n';

interface ErrorMessageProps {
  message: string;
  id?: string;
  onRetry?: () => void;
}

export function ErrorMessage({ message, id, onRetry }: ErrorMessageProps) {
  const t = useT();
  return (
    <div id={id} className="error" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('error.retry')}
        </button>
      )}
    </div>
  );
}
