import { isAllowedOrigin, parseOrigin } from '../origin.js';
import type { PlatformSession } from '../types.js';
import { isInitSessionMessage, postAppReady, sessionFrom } from './init-session.js';

/** The parts of `window` the handshake uses; a real `Window` fits. */
export type PlatformWindow = Pick<Window, 'addEventListener' | 'removeEventListener' | 'parent'>;

export type PlatformConnectionErrorCode = 'TIMEOUT' | 'NOT_EMBEDDED' | 'ABORTED';

export class PlatformConnectionError extends Error {
  readonly code: PlatformConnectionErrorCode;

  constructor(code: PlatformConnectionErrorCode, message: string) {
    super(message);
    this.name = 'PlatformConnectionError';
    this.code = code;
  }
}

export interface ConnectOptions {
  /**
   * The platform's origins, e.g. `['https://plaza.example']`. Subdomains with the same scheme and port
   * are accepted too; nothing else is.
   */
  allowedOrigins: readonly string[];
  /** Default `globalThis.window`. */
  window?: PlatformWindow;
  /** Reject if no valid INIT_SESSION arrives in time. Default 15,000 ms, as long as the platform waits for APP_READY. */
  timeoutMs?: number;
  /**
   * Called for each later INIT_SESSION (the platform refreshing the token), only from the origin of
   * the first one. Giving it keeps the listener until `signal` aborts.
   */
  onSession?: (session: PlatformSession) => void;
  /** Stops waiting (rejects with ABORTED) or, after the first session, stops `onSession`. */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 15_000;

function requireValidOrigins(allowedOrigins: readonly string[]): void {
  if (!Array.isArray(allowedOrigins) || allowedOrigins.length === 0) {
    throw new TypeError('allowedOrigins must list the platform origins, e.g. ["https://plaza.example"]');
  }
  const malformed = allowedOrigins.filter((origin) => !parseOrigin(origin));
  if (malformed.length > 0) {
    throw new TypeError(`allowedOrigins has entries that are not origins (scheme://host[:port]): ${malformed.map((o) => JSON.stringify(o)).join(', ')}`);
  }
}

/**
 * Waits for the platform's INIT_SESSION and answers APP_READY. A message counts only if it comes from
 * the parent window and from an allowed origin, and has the INIT_SESSION shape; anything else is
 * ignored, since any page can post to this window. Call it as early as possible during page load, so
 * the listener is in place before the platform sends INIT_SESSION.
 *
 * Send `session.token` to your backend and verify it there; the browser cannot tell a real one.
 */
export function connectToPlatform(options: ConnectOptions): Promise<PlatformSession> {
  const { allowedOrigins, timeoutMs = DEFAULT_TIMEOUT_MS, onSession, signal } = options;
  requireValidOrigins(allowedOrigins);
  const win = options.window ?? (globalThis as { window?: PlatformWindow }).window;
  if (!win) return Promise.reject(new TypeError('connectToPlatform runs in a browser; pass `window` elsewhere'));
  const parent = win.parent;
  if (!parent || parent === win) {
    return Promise.reject(new PlatformConnectionError('NOT_EMBEDDED', 'This page is not inside the platform iframe, so no session will arrive'));
  }
  if (signal?.aborted) return Promise.reject(new PlatformConnectionError('ABORTED', 'Connecting to the platform was aborted'));

  return new Promise((resolve, reject) => {
    let platformOrigin: string | undefined;

    const onMessage = (event: MessageEvent) => {
      if (event.source !== parent) return;
      if (!isAllowedOrigin(event.origin, allowedOrigins)) return;
      if (platformOrigin !== undefined && event.origin !== platformOrigin) return;
      if (!isInitSessionMessage(event.data)) return;

      postAppReady(parent, event.origin);
      const session = sessionFrom(event.data, event.origin);
      if (platformOrigin !== undefined) {
        onSession?.(session);
        return;
      }
      platformOrigin = event.origin;
      clearTimeout(timer);
      if (!onSession) stopListening();
      resolve(session);
    };

    const stopListening = () => {
      clearTimeout(timer);
      win.removeEventListener('message', onMessage);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      stopListening();
      reject(new PlatformConnectionError('ABORTED', 'Connecting to the platform was aborted'));
    };
    const timer = setTimeout(() => {
      stopListening();
      reject(
        new PlatformConnectionError(
          'TIMEOUT',
          `No INIT_SESSION from ${allowedOrigins.join(' or ')} within ${timeoutMs} ms; is the page opened by the platform, and is allowedOrigins right?`,
        ),
      );
    }, timeoutMs);

    win.addEventListener('message', onMessage);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
