import { useState } from 'react';
import { useT } from '../i18n/i18n';

export function CopyButton({ value, label }: { value: string; label?: string }) {
  const t = useT();
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setOutcome('copied');
    } catch {
      // Clipboard access needs a secure context and permission; the value stays selectable on screen.
      setOutcome('failed');
    }
  }

  return (
    <>
      {/* copy() shows its own outcome, a refused clipboard included. */}
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label ?? t('copy.copy')}
      </button>
      <span role="status" className="hint">
        {outcome === 'copied' ? t('copy.copied') : outcome === 'failed' ? t('copy.failed') : ''}
      </span>
    </>
  );
}
