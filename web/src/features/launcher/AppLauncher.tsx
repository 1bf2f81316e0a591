import { useApolloClient, useQuery } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { LocaleProvider, useT, type Translate } from '../../i18n/i18n';
import { asLocale } from '../../i18n/strings';
import { applyTheme, asTheme } from '../shell/preferences';
import { LaunchAppMutation, LauncherAppQuery } from './launch-app';
import { describeLaunchProblem } from './launch-problem';
import { LaunchFailure } from './LaunchFailure';
import { startSessionHandshake, type SessionHandshake } from './session-handshake';

type Launch = ResultOf<typeof LaunchAppMutation>['launchApp'];

type Phase =
  | { kind: 'launching' }
  | { kind: 'launch-failed'; error: unknown }
  | { kind: 'waiting-for-app'; launch: Launch }
  | { kind: 'ready'; launch: Launch }
  | { kind: 'not-responding'; launch: Launch };

export interface AppLauncherProps {
  appId: string;
  /** null: the account's own preference, which Plaza applies. */
  locale?: string | null;
  theme?: string | null;
}

/** Opens an app full page in a sandboxed iframe and hands it the user's session (INIT_SESSION / APP_READY). */
export function AppLauncher({ appId, locale = null, theme = null }: AppLauncherProps) {
  const client = useApolloClient();
  const app = useQuery(LauncherAppQuery, { variables: { appId } });
  const [attempt, setAttempt] = useState(0);
  const [phase, setPhase] = useState<Phase>({ kind: 'launching' });
  const frame = useRef<HTMLIFrameElement>(null);
  const handshake = useRef<SessionHandshake | null>(null);
  const loadedFrame = useRef<HTMLIFrameElement | null>(null);
  const launch = 'launch' in phase ? phase.launch : null;
  // The launcher stands outside the shell, so it applies the person's language and theme itself: this
  // opening's choice (in the URL) first, then what the launch answered, then the account's preference.
  const me = app.data?.me;
  const shownLocale = asLocale(locale ?? launch?.locale ?? me?.locale);
  const shownTheme = asTheme(theme ?? launch?.theme ?? me?.theme);

  useEffect(() => {
    applyTheme(shownTheme);
    document.documentElement.lang = shownLocale;
  }, [shownTheme, shownLocale]);

  // Each attempt (Retry included) asks for a new launch, so the app always gets a fresh token.
  useEffect(() => {
    let current = true;
    setPhase({ kind: 'launching' });
    client.mutate({ mutation: LaunchAppMutation, variables: { appId, locale, theme } }).then(
      ({ data }) => {
        if (current && data) setPhase({ kind: 'waiting-for-app', launch: data.launchApp });
      },
      (error: unknown) => {
        if (current) setPhase({ kind: 'launch-failed', error });
      },
    );
    return () => {
      current = false;
    };
  }, [client, appId, locale, theme, attempt]);

  useEffect(() => {
    if (!launch) return;
    const session = startSessionHandshake({
      appWindow: () => frame.current?.contentWindow ?? null,
      targetOrigin: launch.targetOrigin,
      message: { type: 'INIT_SESSION', token: launch.token, userId: launch.userId, locale: launch.locale, theme: launch.theme },
      onReady: () => setPhase({ kind: 'ready', launch }),
      onTimeout: () => setPhase({ kind: 'not-responding', launch }),
    });
    handshake.current = session;
    // In case the frame finished loading before this effect ran.
    if (frame.current && loadedFrame.current === frame.current) session.frameLoaded();
    return () => {
      session.stop();
      handshake.current = null;
    };
  }, [launch]);

  const retry = () => setAttempt((count) => count + 1);
  const frameLoaded = (loaded: HTMLIFrameElement) => {
    loadedFrame.current = loaded;
    handshake.current?.frameLoaded();
  };

  return (
    <LocaleProvider locale={shownLocale}>
      <LauncherScreen appName={app.data?.app?.name ?? null} phase={phase} frame={frame} onFrameLoad={frameLoaded} onRetry={retry} />
    </LocaleProvider>
  );
}

interface LauncherScreenProps {
  appName: string | null;
  phase: Phase;
  frame: RefObject<HTMLIFrameElement | null>;
  onFrameLoad: (frame: HTMLIFrameElement) => void;
  onRetry: () => void;
}

function LauncherScreen({ appName: knownName, phase, frame, onFrameLoad, onRetry }: LauncherScreenProps) {
  const t = useT();
  const appName = knownName ?? t('launcher.thisApp');
  const launch = 'launch' in phase ? phase.launch : null;
  const problem = phase.kind === 'launch-failed' ? describeLaunchProblem(phase.error, t) : null;
  // Until APP_READY the app's page may be blank, half drawn or the browser's broken-page icon: it is covered.
  const waiting = phase.kind === 'launching' || phase.kind === 'waiting-for-app';

  useEffect(() => {
    document.title = `${appName} · Plaza`;
  }, [appName]);

  return (
    <div className="launcher">
      <header className="launcher-bar">
        <a className="launcher-back" href="/">
          {t('launcher.back')}
        </a>
        <h1>{appName}</h1>
        <p className="launcher-status" role="status">
          {statusText(phase, appName, t)}
        </p>
      </header>
      {problem && <LaunchFailure message={problem.message} onRetry={onRetry} offerSignIn={problem.needsSignIn} />}
      {phase.kind === 'not-responding' && <LaunchFailure message={t('launcher.notResponding', { name: appName })} onRetry={onRetry} />}
      {(waiting || phase.kind === 'ready') && (
        <div className="launcher-stage">
          {launch && (
            <iframe
              key={launch.token}
              ref={frame}
              className="launcher-frame"
              title={appName}
              src={launch.appUrl}
              sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
              onLoad={(event) => onFrameLoad(event.currentTarget)}
            />
          )}
          {waiting && (
            <div className="launcher-waiting" aria-hidden="true">
              <span className="launcher-spinner" />
            </div>
          )}
        </div>
      )}
    </div>
  );
}

function statusText(phase: Phase, appName: string, t: Translate): string {
  switch (phase.kind) {
    case 'launching':
      return t('launcher.opening', { name: appName });
    case 'waiting-for-app':
      return t('launcher.waiting', { name: appName });
    case 'ready':
      return t('launcher.open', { name: appName });
    // The failed phases say so in their own alert instead of this line.
    case 'launch-failed':
    case 'not-responding':
      return '';
  }
}
