// The webhook body and the iframe messages are defined once, in the workspace's shared package, for the platform
// and this SDK alike; the build copies it into dist/shared/ (scripts/finish-build.mjs), so the published SDK
// depends on nothing unpublished and these names are what app developers import.
import type { KnownWebhookEventName, WebhookEvent as WebhookBody } from '@plaza/shared';
export { WEBHOOK_EVENT_NAMES, type WebhookEventName, type KnownWebhookEventName, type InitSessionMessage, type AppReadyMessage } from '@plaza/shared';

/**
 * A webhook body that matched its event's JSON Schema (as Plaza serves it at /webhooks/schemas/): one of
 * the events this SDK knows, with exactly the seven fields. What `onEvent` and `parseWebhookEvent` give.
 */
export interface WebhookEvent extends Omit<WebhookBody, 'event'> {
  event: KnownWebhookEventName;
}

/** A well-formed body of an event this SDK does not know (a later Plaza's): only `event` is certain. What `onUnknownEvent` gets. */
export interface UnknownWebhookEvent {
  event: string;
  readonly [field: string]: unknown;
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
