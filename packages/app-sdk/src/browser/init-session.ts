import type { AppReadyMessage, InitSessionMessage, PlatformSession } from '../types.js';

const APP_READY: AppReadyMessage = { type: 'APP_READY' };

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** True when `data` has the shape of INIT_SESSION; anything else is ignored, not treated as an error. */
export function isInitSessionMessage(data: unknown): data is InitSessionMessage {
  if (typeof data !== 'object' || data === null) return false;
  const message = data as Record<string, unknown>;
  return (
    message.type === 'INIT_SESSION' &&
    isNonEmptyString(message.token) &&
    isNonEmptyString(message.userId) &&
    typeof message.locale === 'string' &&
    typeof message.theme === 'string'
  );
}

export function sessionFrom(message: InitSessionMessage, platformOrigin: string): PlatformSession {
  const { token, userId, locale, theme } = message;
  return { token, userId, locale, theme, platformOrigin };
}

/** Answers only the verified sender's origin: `'*'` would hand the message to whoever is framing us. */
export function postAppReady(parent: Window, platformOrigin: string): void {
  parent.postMessage(APP_READY, platformOrigin);
}
