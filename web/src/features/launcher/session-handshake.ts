import type { AppReadyMessage, InitSessionMessage } from '@plaza/shared';

/** How long the app has to answer APP_READY before the user is told it did not respond and may retry: a slow app still loads, a broken one does not leave a blank frame. */
export const APP_READY_TIMEOUT_MS = 15_000;
/** The app may start listening only after its load event, so INIT_SESSION is sent again until it answers. */
export const INIT_SESSION_RESEND_MS = 500;

export interface SessionHandshakeOptions {
  /** The iframe's window; read on each send, since it changes when the frame navigates. */
  appWindow: () => Window | null;
  /** The App URL's origin: the only origin that receives INIT_SESSION and may answer APP_READY. */
  targetOrigin: string;
  message: InitSessionMessage;
  onReady: () => void;
  onTimeout: () => void;
  /** Where APP_READY arrives: the launcher's own window. */
  host?: Window;
}

export interface SessionHandshake {
  /** Call on every load event of the iframe: INIT_SESSION is (re)sent from then on until APP_READY. */
  frameLoaded(): void;
  /** Stops sending, listening and the timer (the launcher is leaving or retrying). */
  stop(): void;
}

/**
 * The platform side of the handshake: INIT_SESSION goes only to the app's origin (never '*', which
 * would hand the token to whatever page the frame shows), and only APP_READY from that iframe's window
 * and origin counts; any other page can post messages to the launcher.
 */
export function startSessionHandshake(options: SessionHandshakeOptions): SessionHandshake {
  const { appWindow, targetOrigin, message, onReady, onTimeout, host = window } = options;
  let resendTimer: ReturnType<typeof setInterval> | undefined;
  let settled = false;

  const send = () => appWindow()?.postMessage(message, targetOrigin);

  const stop = () => {
    settled = true;
    clearInterval(resendTimer);
    clearTimeout(timeoutTimer);
    host.removeEventListener('message', onMessage);
  };

  function onMessage(event: MessageEvent) {
    if (event.source === null || event.source !== appWindow() || event.origin !== targetOrigin) return;
    if ((event.data as Partial<AppReadyMessage> | null)?.type !== 'APP_READY') return;
    stop();
    onReady();
  }

  const timeoutTimer = setTimeout(() => {
    stop();
    onTimeout();
  }, APP_READY_TIMEOUT_MS);
  host.addEventListener('message', onMessage);

  return {
    frameLoaded() {
      if (settled) return;
      clearInterval(resendTimer);
      send();
      resendTimer = setInterval(send, INIT_SESSION_RESEND_MS);
    },
    stop,
  };
}
