export * from '../types.js';
export { isAllowedOrigin } from '../origin.js';
export {
  verifyWebhookSignature,
  verifyStandardWebhook,
  signWebhookBody,
  type ClientSecrets,
  type StandardWebhookHeaders,
  type StandardWebhookOptions,
} from './webhook-signature.js';
export { createSessionVerifier, SessionTokenError, type SessionTokenErrorCode, type SessionVerifier, type SessionVerifierOptions } from './session-token.js';
export { createWebhookHandler } from './node-handler.js';
export { expressWebhookHandler, type ExpressLikeRequest, type ExpressLikeNext } from './express-handler.js';
export {
  createWebhookReceiver,
  type WebhookDeliveryMeta,
  type WebhookEventListener,
  type UnknownWebhookEventListener,
  type WebhookHandlerOptions,
  type WebhookOutcome,
  type WebhookReceiver,
} from './webhook-receiver.js';
export { type DedupeStore, MemoryDedupeStore, dedupeKey } from './dedupe-store.js';
export { DEFAULT_REPLAY_TOLERANCE_SECONDS } from './webhook-timestamp.js';
// The event catalogue Plaza serves at /webhooks/schemas/: validate payloads with any JSON Schema validator.
export { webhookEventSchema, webhookSchemaIndex, webhookSchemaPath, WEBHOOK_PAYLOAD_FIELDS, WEBHOOK_SCHEMAS_PATH } from '@plaza/shared';
export { parseWebhookEvent, MalformedWebhookError, UnknownWebhookEventError } from './webhook-payload.js';
