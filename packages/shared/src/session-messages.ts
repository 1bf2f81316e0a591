// The iframe handshake between the platform's launcher (web) and an app page (app SDK), over postMessage.

/** What the platform (AppLauncher) posts to the app's iframe when a user opens the app. */
export interface InitSessionMessage {
  type: 'INIT_SESSION';
  /** Session token (ES256 JWT): send it to your backend and verify it there. */
  token: string;
  userId: string;
  locale: string;
  theme: string;
}

/** The data fields of INIT_SESSION, in the message's order: what every app is told about the person who opens it. */
export const INIT_SESSION_FIELDS = ['token', 'userId', 'locale', 'theme'] as const satisfies readonly Exclude<keyof InitSessionMessage, 'type'>[];

/** What the app posts to its parent window once it has loaded. */
export interface AppReadyMessage {
  type: 'APP_READY';
}
