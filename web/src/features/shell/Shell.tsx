import { useApolloClient, useQuery } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { LocaleProvider, useT } from '../../i18n/i18n';
import { asLocale, type Locale } from '../../i18n/strings';
import type { Route } from '../../routes';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { NotificationBell } from '../notifications/NotificationBell';
import { CurrentViewerQuery } from '../session/current-viewer';
import { SessionPanel } from '../session/SessionPanel';
import { signOut } from '../session/auth-api';
import { asTheme, type Theme } from './preferences';
import { PreferenceSwitches } from './PreferenceSwitches';
import { TopNav } from './TopNav';

export type Viewer = NonNullable<ResultOf<typeof CurrentViewerQuery>['me']>;

export function Shell({ route, children }: { route: Route; children: (viewer: Viewer) => ReactNode }) {
  const client = useApolloClient();
  const viewer = useQuery(CurrentViewerQuery, { fetchPolicy: 'cache-and-network' });
  // Everything cached belonged to the previous account; resetting refetches what is on screen.
  const sessionChanged = () => void client.resetStore().catch(() => undefined);
  const [override, setOverride] = useState<{ locale: Locale; theme: Theme } | null>(null);
  const me = viewer.data?.me ?? null;
  const locale = override?.locale ?? asLocale(me?.locale);
  const theme = override?.theme ?? asTheme(me?.theme);
  // Judged by data rather than `loading`, so a later refetch does not tear down the page it feeds.
  const checkingSession = viewer.data === undefined && viewer.error === undefined;
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(route);
  // A client-side navigation changes no document, so screen readers and keyboards would stay on the old link.
  useEffect(() => {
    if (route !== firstRoute.current) main.current?.focus();
  }, [route]);

  return (
    <LocaleProvider locale={locale}>
      <div className="shell">
        <header className="shell-header">
          <a className="brand" href="/">
            Plaza
          </a>
          <TopNav route={route} />
          <div className="shell-tools">
            {me && <ViewerSummary viewer={me} onSignedOut={sessionChanged} />}
            {me && <NotificationBell key={me.id} />}
            <PreferenceSwitches locale={locale} theme={theme} onChange={setOverride} />
          </div>
        </header>
        <main className="page" ref={main} tabIndex={-1}>
          {checkingSession ? (
            <Checking />
          ) : me ? (
            children(me)
          ) : (
            <>
              {viewer.error && <ErrorMessage message={`Could not check your session: ${viewer.error.message}`} />}
              <SignInPrompt onSignedIn={sessionChanged} />
            </>
          )}
        </main>
      </div>
    </LocaleProvider>
  );
}

function Checking() {
  const t = useT();
  return <p aria-live="polite">{t('shell.checking')}</p>;
}

function SignInPrompt({ onSignedIn }: { onSignedIn: () => void }) {
  const t = useT();
  return (
    <>
      <p className="lede">{t('shell.signInPrompt')}</p>
      <SessionPanel initialUser={null} onSessionChange={(user) => user && onSignedIn()} />
    </>
  );
}

function ViewerSummary({ viewer, onSignedOut }: { viewer: Viewer; onSignedOut: () => void }) {
  const t = useT();
  return (
    <div className="viewer-summary">
      {/* "Signed in as <email>" is also what the browser tests wait for after signing in. */}
      <span className="viewer-email">
        {t('shell.signedInAs')} <strong>{viewer.email}</strong>
      </span>
      <span className="badge points">{t('shell.points', { points: viewer.points })}</span>
      <button type="button" className="secondary" onClick={() => void signOut().then(onSignedOut, onSignedOut)}>
        {t('shell.signOut')}
      </button>
    </div>
  );
}
