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

/** What the app posts to its parent window once it has loaded. */
export interface AppReadyMessage {
  type: 'APP_READY';
}
