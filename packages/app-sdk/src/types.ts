/** Event types Plaza sends to an app's Webhook URL. */
export const WEBHOOK_EVENT_NAMES = ['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded', 'app.test'] as const;

/** A known event type; other strings are allowed so a new platform event does not break older receivers. */
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number] | (string & {});

/** The JSON body of every webhook request: always exactly these seven fields. */
export interface WebhookEvent {
  event: WebhookEventName;
  app_id: string;
  user_id: string;
  /** `APP-<digits>-<suffix>`; a refund or uninstall carries the purchase_id of the purchase it ends. */
  purchase_id: string;
  amount_vnd: number;
  /** floor(amount_vnd * 80 / 100). */
  developer_share_vnd: number;
  /** ISO 8601 UTC time of the event. */
  timestamp: string;
}

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

/** A verified INIT_SESSION, with the origin it came from. */
export interface PlatformSession {
  token: string;
  userId: string;
  locale: string;
  theme: string;
  /** The origin the INIT_SESSION came from, already checked against allowedOrigins. */
  platformOrigin: string;
}

/** A session token that passed verification on the app's backend. */
export interface VerifiedSession {
  userId: string;
  appId: string;
  /** The token's `jti`: store it if you want to refuse a token being used twice. */
  tokenId: string;
  expiresAt: Date;
}
