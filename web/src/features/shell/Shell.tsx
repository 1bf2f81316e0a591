import type { ResultOf } from '@graphql-typed-document-node/core';
import { Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { setErrorLocale } from '../../connection';
import { LocaleProvider, useT, useWordsReady } from '../../i18n/i18n';
import { asLocale, type Locale, type MessageKey } from '../../i18n/strings';
import { resetStore, useQuery } from '../../first-load-query';
import { lazyPage } from '../../lazy-page';
import type { Route } from '../../routes';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { CurrentViewerQuery } from '../session/current-viewer';
import { SessionPanel } from '../session/SessionPanel';
import { signOut } from '../session/auth-api';
import { asTheme, type Theme } from './preferences';
import { PreferenceSwitches } from './PreferenceSwitches';
import { TopNav } from './TopNav';
import { AccountMenu } from './AccountMenu';
import { ConnectionBanner } from './ConnectionBanner';

// Only a signed-in person has notifications: a visitor's first load of the store does not carry the bell.
const NotificationBell = lazyPage(() => import('../notifications/NotificationBell').then((module) => module.NotificationBell), { firstLoadWords: true });

export type Viewer = NonNullable<ResultOf<typeof CurrentViewerQuery>['me']>;

// A store is for browsing: these pages show to visitors who are not signed in, with the sign-in form below.
const PUBLIC_ROUTES: ReadonlySet<Route['kind']> = new Set(['store', 'store-app']);
const SPENDING_ROUTES: ReadonlySet<Route['kind']> = new Set(['store', 'store-app', 'library']);
// Tables of deliveries, apps and users need more than a column of prose; the rest keep a readable measure.
const WIDE_ROUTES: ReadonlySet<Route['kind']> = new Set(['webhook-logs', 'webhook-delivery', 'my-apps', 'developer-app', 'api-tokens', 'review-queue', 'admin']);

/** `children` gets the signed-in viewer, or null on a public page a visitor opened without signing in. */
export function Shell({ route, children }: { route: Route; children: (viewer: Viewer | null) => ReactNode }) {
  const viewer = useQuery(CurrentViewerQuery, { fetchPolicy: 'cache-and-network' });
  // Everything cached belonged to the previous account; resetting refetches what is on screen.
  // Each query that fails to load again shows its own error.
  const sessionChanged = () => void resetStore().catch(() => undefined);
  useAskAgainWhileFailing(viewer.error, viewer.refetch);
  const [override, setOverride] = useState<{ locale: Locale; theme: Theme } | null>(null);
  const me = viewer.data?.me ?? null;
  const locale = override?.locale ?? asLocale(me?.locale);
  const theme = override?.theme ?? asTheme(me?.theme);
  // Transport errors are made outside React; they are told in the page's language.
  useEffect(() => setErrorLocale(locale), [locale]);
  // A Vietnamese reader's first page waits for its words rather than showing in English first; a later
  // switch of language keeps the page (and what was typed in it) and changes its words when they arrive.
  // The session is judged by data rather than `loading`, so a later refetch does not tear down the page it feeds.
  const sessionUnknown = viewer.data === undefined && viewer.error === undefined;
  const wordsReady = useWordsReady(locale);
  const [pageWordsShown, setPageWordsShown] = useState(false);
  if (!sessionUnknown && wordsReady && !pageWordsShown) setPageWordsShown(true);
  const checkingSession = sessionUnknown || !pageWordsShown;
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(route);
  // A client-side navigation changes no document, so screen readers and keyboards would stay on the old link.
  useEffect(() => {
    if (route !== firstRoute.current) main.current?.focus();
  }, [route]);

  return (
    <LocaleProvider locale={locale}>
      <div className="shell">
        {/* The first stop of the keyboard (finding 14): past the header's links straight to the page. */}
        <a
          className="skip-link"
          href={`#${MAIN_ID}`}
          onClick={(event) => {
            event.preventDefault();
            main.current?.focus();
          }}
        >
          <SkipText />
        </a>
        <header className="shell-header">
          <a className="brand" href="/">
            Plaza
          </a>
          <TopNav route={route} />
          <div className="shell-tools">
            {/* Points where they can be spent: the store and one's library, not the developer portal (finding 15). */}
            {me && SPENDING_ROUTES.has(route.kind) && <PointsBadge points={me.points} />}
            {me && (
              <Suspense fallback={null}>
                <NotificationBell key={me.id} />
              </Suspense>
            )}
            {me ? (
              // Never rejects: signed out or not, the session is read again (sessionChanged on either outcome).
              <AccountMenu email={me.email} onSignOut={() => void signOut().then(sessionChanged, sessionChanged)}>
                <PreferenceSwitches locale={locale} theme={theme} onChange={setOverride} />
              </AccountMenu>
            ) : (
              <>
                {!checkingSession && <SignInLink />}
                <PreferenceSwitches locale={locale} theme={theme} onChange={setOverride} />
              </>
            )}
          </div>
        </header>
        <ConnectionBanner />
        <main className={WIDE_ROUTES.has(route.kind) ? 'page page-wide' : 'page'} ref={main} tabIndex={-1} id={MAIN_ID}>
          {checkingSession ? (
            <PageSkeleton words="shell.checking" />
          ) : me ? (
            children(me)
          ) : PUBLIC_ROUTES.has(route.kind) ? (
            <>
              {viewer.error && <SessionCheckFailed message={viewer.error.message} />}
              {children(null)}
              <SignInPrompt onSignedIn={sessionChanged} />
            </>
          ) : (
            <>
              {viewer.error && <SessionCheckFailed message={viewer.error.message} />}
              <SignInPrompt onSignedIn={sessionChanged} />
            </>
          )}
        </main>
      </div>
    </LocaleProvider>
  );
}

/** Pauses before asking for the session again after a failed read, growing to the last and staying there. */
const SESSION_RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 15_000];

/**
 * A session read that failed (a 503 while the database fails over, an answer lost on a busy network) is asked
 * again by itself. Right after a sign-in that read is what turns the form into the signed-in page: without
 * this, one failed read left a person who had signed in looking at an empty sign-in form.
 */
function useAskAgainWhileFailing(error: unknown, refetch: () => Promise<unknown>): void {
  const failuresInARow = useRef(0);
  useEffect(() => {
    if (!error) {
      failuresInARow.current = 0;
      return;
    }
    const delay = SESSION_RETRY_DELAYS_MS[Math.min(failuresInARow.current, SESSION_RETRY_DELAYS_MS.length - 1)];
    failuresInARow.current += 1;
    // A read that fails again comes back as the next `error`, which schedules the next try.
    const timer = setTimeout(() => void refetch().catch(() => undefined), delay);
    return () => clearTimeout(timer);
  }, [error, refetch]);
}

/** While the session is checked or a page's code loads: the skeleton index.html paints first. */
export function PageSkeleton({ words = 'loading' }: { words?: MessageKey }) {
  const t = useT();
  return (
    <div aria-live="polite" aria-busy="true">
      <p className="visually-hidden">{t(words)}</p>
      <div className="bone bone-title" />
      <div className="bone" />
      <div className="bone bone-card" />
      <div className="bone bone-card" />
    </div>
  );
}

/** The sign-in form's anchor: the header's "Sign in" and the store's install button lead here. */
export const SIGN_IN_ANCHOR = 'sign-in';

function SignInPrompt({ onSignedIn }: { onSignedIn: () => void }) {
  const t = useT();
  return (
    <div id={SIGN_IN_ANCHOR} className="sign-in-prompt">
      <p className="lede">{t('shell.signInPrompt')}</p>
      <SessionPanel initialUser={null} onSessionChange={(user) => user && onSignedIn()} />
    </div>
  );
}

const MAIN_ID = 'main-content';

function SkipText() {
  const t = useT();
  return t('shell.skipToContent');
}

function PointsBadge({ points }: { points: number }) {
  const t = useT();
  return <span className="badge points">{t('shell.points', { points })}</span>;
}

function SignInLink() {
  const t = useT();
  return (
    <a className="button-link secondary" href={`#${SIGN_IN_ANCHOR}`}>
      {t('shell.signIn')}
    </a>
  );
}

/** Inside the LocaleProvider, so it speaks the language the page is in. */
function SessionCheckFailed({ message }: { message: string }) {
  const t = useT();
  return <ErrorMessage message={t('shell.sessionFailed', { message })} />;
}
