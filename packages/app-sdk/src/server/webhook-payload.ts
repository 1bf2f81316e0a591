import type { WebhookEvent } from '../types.js';

export class MalformedWebhookError extends Error {
  constructor(reason: string) {
    super(`Malformed webhook payload: ${reason}`);
    this.name = 'MalformedWebhookError';
  }
}

const STRING_FIELDS = ['event', 'app_id', 'user_id', 'purchase_id', 'timestamp'] as const;
const AMOUNT_FIELDS = ['amount_vnd', 'developer_share_vnd'] as const;

/**
 * Parses a webhook body (only after its signature was verified) and checks the seven fields' types.
 * Fields added by a later platform version are kept, not refused.
 */
export function parseWebhookEvent(rawBody: Buffer | string): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    throw new MalformedWebhookError('body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MalformedWebhookError('body is not a JSON object');
  }
  const fields = parsed as Record<string, unknown>;
  for (const name of STRING_FIELDS) {
    if (typeof fields[name] !== 'string' || fields[name] === '') throw new MalformedWebhookError(`${name} must be a non-empty string`);
  }
  for (const name of AMOUNT_FIELDS) {
    if (!Number.isSafeInteger(fields[name])) throw new MalformedWebhookError(`${name} must be an integer`);
  }
  return parsed as WebhookEvent;
}
