import { useApolloClient, useQuery } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useEffect, useRef, useState } from 'react';
import { LaunchAppMutation, LauncherAppQuery } from './launch-app';
import { describeLaunchProblem, type LaunchProblem } from './launch-problem';
import { LaunchFailure } from './LaunchFailure';
import { startSessionHandshake, type SessionHandshake } from './session-handshake';

type Launch = ResultOf<typeof LaunchAppMutation>['launchApp'];

type Phase =
  | { kind: 'launching' }
  | { kind: 'launch-failed'; problem: LaunchProblem }
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
  const appName = app.data?.app?.name ?? 'This app';
  const [attempt, setAttempt] = useState(0);
  const [phase, setPhase] = useState<Phase>({ kind: 'launching' });
  const frame = useRef<HTMLIFrameElement>(null);
  const handshake = useRef<SessionHandshake | null>(null);
  const loadedFrame = useRef<HTMLIFrameElement | null>(null);
  const launch = 'launch' in phase ? phase.launch : null;

  useEffect(() => {
    document.title = `${appName} · Plaza`;
  }, [appName]);

  // Each attempt (Retry included) asks for a new launch, so the app always gets a fresh token.
  useEffect(() => {
    let current = true;
    setPhase({ kind: 'launching' });
    client.mutate({ mutation: LaunchAppMutation, variables: { appId, locale, theme } }).then(
      ({ data }) => {
        if (current && data) setPhase({ kind: 'waiting-for-app', launch: data.launchApp });
      },
      (error: unknown) => {
        if (current) setPhase({ kind: 'launch-failed', problem: describeLaunchProblem(error) });
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

  return (
    <div className="launcher">
      <header className="launcher-bar">
        <a className="launcher-back" href="/">
          ← Back to Plaza
        </a>
        <h1>{appName}</h1>
        <p className="launcher-status" role="status">
          {statusText(phase, appName)}
        </p>
      </header>
      {phase.kind === 'launch-failed' && <LaunchFailure message={phase.problem.message} onRetry={retry} offerSignIn={phase.problem.needsSignIn} />}
      {phase.kind === 'not-responding' && (
        <LaunchFailure message={`${appName} did not respond within 15 seconds. The app may be down, or its page does not connect to Plaza.`} onRetry={retry} />
      )}
      {launch && phase.kind !== 'not-responding' && (
        <iframe
          key={launch.token}
          ref={frame}
          className="launcher-frame"
          title={appName}
          src={launch.appUrl}
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
          onLoad={(event) => {
            loadedFrame.current = event.currentTarget;
            handshake.current?.frameLoaded();
          }}
        />
      )}
    </div>
  );
}

function statusText(phase: Phase, appName: string): string {
  switch (phase.kind) {
    case 'launching':
      return `Opening ${appName}…`;
    case 'waiting-for-app':
      return `Waiting for ${appName} to respond…`;
    case 'ready':
      return `${appName} is open.`;
    default:
      return '';
  }
}
