import { useState } from 'react';
import { useT } from '../../i18n/i18n';

/** Pretty JSON reads better; the raw text is what was signed, so it must be one click away byte for byte. */
export function DeliveryPayload({ payload }: { payload: string }) {
  const t = useT();
  const [raw, setRaw] = useState(false);
  const pretty = prettyJson(payload);
  return (
    <section aria-labelledby="delivery-payload-heading">
      <div className="page-head">
        <h2 id="delivery-payload-heading">{t('webhooks.payload')}</h2>
        <button type="button" className="secondary" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          {t('webhooks.showRaw')}
        </button>
      </div>
      <pre className="payload" data-testid="delivery-payload">
        {raw || pretty === null ? payload : pretty}
      </pre>
    </section>
  );
}

function prettyJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null; // not JSON after all: only the raw text can be shown
  }
}
