interface ErrorMessageProps {
  message: string;
  id?: string;
  onRetry?: () => void;
}

export function ErrorMessage({ message, id, onRetry }: ErrorMessageProps) {
  return (
    <div id={id} className="error" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
