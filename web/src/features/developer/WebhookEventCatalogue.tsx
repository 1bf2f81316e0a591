import { WEBHOOK_EVENT_NAMES, WEBHOOK_SCHEMAS_PATH, webhookSchemaPath } from '@plaza/shared';
import { useId } from 'react';
import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';

/**
 * The events Plaza sends an app's webhook URL, each linked to the JSON Schema Plaza serves for its body
 * (the same schemas, from @plaza/shared, that the server publishes and the SDK is tested against).
 */
export function WebhookEventCatalogue() {
  const t = useT();
  const headingId = useId();
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('catalogue.heading')}</h2>
      <p className="hint">{t('catalogue.lede')}</p>
      <dl className="facts">
        {WEBHOOK_EVENT_NAMES.map((event) => (
          <div key={event}>
            <dt>
              <a href={webhookSchemaPath(event)} aria-label={t('catalogue.schemaOf', { event })}>
                <code>{event}</code>
              </a>
            </dt>
            <dd>{t(`catalogue.event.${event}` as MessageKey)}</dd>
          </div>
        ))}
      </dl>
      <p className="hint">{t('catalogue.dedupe')}</p>
      <p>
        <a href={WEBHOOK_SCHEMAS_PATH}>{t('catalogue.all')}</a>
      </p>
    </section>
  );
}
