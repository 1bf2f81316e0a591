import { useEffect, useState } from 'react';

/**
 * Says that an action worked, politely. The live region is on the page before its words: screen readers
 * announce a change inside a region they already know, but often not a role="status" that arrives with
 * its text already in it (as on a page that opens with the news of what was just done there).
 */
export function StatusMessage({ message, className }: { message: string | null; className?: string }) {
  const [shown, setShown] = useState<string | null>(null);
  // One render later than the region itself, so even a region mounted together with its message speaks.
  useEffect(() => setShown(message), [message]);
  return (
    <div className="status-region" aria-live="polite">
      {shown && (
        <p role="status" className={['status-message', className].filter(Boolean).join(' ')}>
          {shown}
        </p>
      )}
    </div>
  );
}
