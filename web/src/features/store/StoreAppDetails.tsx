import { codeLabel, useT } from '../../i18n/i18n';
import type { WebhookEventType } from '../../gql/graphql';

/** The name an event has on the wire and in the docs (APP_PURCHASED is "app.purchased"); the developer feature's helper stays out of the store's code. */
const wireName = (event: WebhookEventType) => `app.${event.slice('APP_'.length).toLowerCase()}`;

interface StoreAppDetailsProps {
  app: {
    name: string;
    longDescription?: string | null;
    screenshotUrls: readonly string[];
    supportUrl?: string | null;
    privacyPolicyUrl?: string | null;
    receives: { sessionFields: readonly string[]; webhookEvents: readonly WebhookEventType[] };
  };
}

/** The app page below its header: the long description, the screenshots, what the app receives, and its support and privacy pages. */
export function StoreAppDetails({ app }: StoreAppDetailsProps) {
  const t = useT();
  const paragraphs = (app.longDescription ?? '').split(/\n\s*\n/).filter((paragraph) => paragraph.trim() !== '');
  const shots = app.screenshotUrls;
  return (
    <>
      {paragraphs.length > 0 && (
        <section className="store-app-section" aria-labelledby="store-app-about">
          <h2 id="store-app-about">{t('store.about')}</h2>
          {/* Plain text: line breaks inside a paragraph are kept by CSS (white-space: pre-line), never read as markup. */}
          {paragraphs.map((paragraph, index) => (
            <p key={index} className="store-app-paragraph">
              {paragraph.trim()}
            </p>
          ))}
        </section>
      )}
      {shots.length > 0 && (
        // Not a region itself: the strip below is the one region the heading names.
        <section className="store-app-section">
          <h2 id="store-app-screenshots">{t('store.screenshots')}</h2>
          {/* Focusable, so keyboard users can scroll the strip (axe: scrollable-region-focusable). */}
          <div className="screenshot-strip" tabIndex={0} role="region" aria-labelledby="store-app-screenshots">
            <ul>
              {shots.map((url, index) => (
                <li key={url + index}>
                  <img src={url} alt={t('store.screenshotAlt', { number: index + 1, count: shots.length, name: app.name })} loading="lazy" decoding="async" />
                </li>
              ))}
            </ul>
          </div>
        </section>
      )}
      <section className="store-app-section" aria-labelledby="store-app-receives">
        <h2 id="store-app-receives">{t('store.receives')}</h2>
        <p>{t('store.receivesSession')}</p>
        <ul className="store-receives">
          {app.receives.sessionFields.map((field) => (
            <li key={field}>
              {codeLabel(t, 'store.sessionField', field)} (<code>{field}</code>)
            </li>
          ))}
        </ul>
        {app.receives.webhookEvents.length > 0 ? (
          <>
            <p>{t('store.receivesEvents')}</p>
            <ul className="store-receives">
              {app.receives.webhookEvents.map((event) => (
                <li key={event}>
                  {codeLabel(t, 'store.receivesEvent', event)} (<code>{wireName(event)}</code>)
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p>{t('store.receivesNoEvents')}</p>
        )}
      </section>
      {(app.supportUrl || app.privacyPolicyUrl) && (
        <ul className="store-app-links">
          {app.supportUrl && (
            <li>
              <a href={app.supportUrl} target="_blank" rel="noopener noreferrer">
                {t('store.support')}
              </a>
            </li>
          )}
          {app.privacyPolicyUrl && (
            <li>
              <a href={app.privacyPolicyUrl} target="_blank" rel="noopener noreferrer">
                {t('store.privacyPolicy')}
              </a>
            </li>
          )}
        </ul>
      )}
    </>
  );
}
