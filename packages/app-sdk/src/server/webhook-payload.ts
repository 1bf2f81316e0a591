import { WEBHOOK_EVENT_NAMES, webhookEventSchema } from '@plaza/shared';
import type { UnknownWebhookEvent, WebhookEvent } from '../types.js';
import { schemaViolation } from './schema-check.js';

/** A signed body that is not a webhook event as Plaza's catalogue defines it: answered 400, never processed. */
export class MalformedWebhookError extends Error {
  constructor(reason: string) {
    super(`Malformed webhook payload: ${reason}`);
    this.name = 'MalformedWebhookError';
  }
}

/**
 * A well-formed body whose event this version of the SDK does not know (one a later Plaza added). Not
 * malformed: the receivers answer 200 and hand it to `onUnknownEvent`, never to `onEvent`, so a new
 * event type neither breaks an older receiver nor reaches code typed for the five it knows.
 */
export class UnknownWebhookEventError extends Error {
  constructor(readonly event: UnknownWebhookEvent) {
    super(`Unknown webhook event ${JSON.stringify(event.event)}: this version of @plaza/app-sdk knows ${WEBHOOK_EVENT_NAMES.join(', ')}`);
    this.name = 'UnknownWebhookEventError';
  }
}

// The schemas Plaza serves at /webhooks/schemas/<event>.json: one definition for the platform and the SDK.
const SCHEMAS = new Map<string, ReturnType<typeof webhookEventSchema>>(WEBHOOK_EVENT_NAMES.map((event) => [event, webhookEventSchema(event)]));

/**
 * Parses a webhook body (only after its signature was verified) and holds it to its event's JSON Schema,
 * exactly as Plaza serves it: the seven fields, no other, each of its type and form. Throws
 * {@link MalformedWebhookError} when the body breaks it, and {@link UnknownWebhookEventError} for a
 * well-formed body of an event this SDK does not know.
 */
export function parseWebhookEvent(rawBody: Buffer | string): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    throw new MalformedWebhookError('body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MalformedWebhookError('body is not a JSON object');
  const { event } = parsed as { event?: unknown };
  if (typeof event !== 'string' || event === '') throw new MalformedWebhookError('event must be a non-empty string');
  const schema = SCHEMAS.get(event);
  if (!schema) throw new UnknownWebhookEventError(parsed as UnknownWebhookEvent);
  const problem = schemaViolation(schema, parsed);
  if (problem) throw new MalformedWebhookError(problem);
  return parsed as WebhookEvent;
}
