import { createHmac } from 'node:crypto';

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole client secret as UTF-8 (the header receivers written before Standard Webhooks verify). */
export function platformSignature(clientSecret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', clientSecret).update(rawBody).digest('hex')}`;
}

/**
 * Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with
 * the base64-decoded part of the secret after `whsec_`, as the standard libraries expect.
 */
export function standardWebhookSignature(clientSecret: string, id: string, timestampSeconds: number, rawBody: string): string {
  const key = Buffer.from(clientSecret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${rawBody}`).digest('base64')}`;
}

export interface SignedRequestParts {
  deliveryId: string;
  eventName: string;
  attemptNumber: number;
  body: string;
  clientSecret: string;
  /** The secret a rotation replaced, while its overlap runs at `now`; null or absent otherwise. */
  previousSecret?: string | null;
  now?: Date;
}

/**
 * Every header of a webhook request: Plaza's own (X-Platform-*) and Standard Webhooks'. During a rotation's overlap
 * `webhook-signature` lists both signatures, new first (`v1,<new> v1,<old>`, space separated as
 * Standard Webhooks allows), and `X-Platform-Signature`, which holds one, keeps the old secret: a
 * receiver not yet redeployed verifies both headers, a redeployed one verifies webhook-signature.
 */
export function webhookHeaders({ deliveryId, eventName, attemptNumber, body, clientSecret, previousSecret, now = new Date() }: SignedRequestParts): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  let standardSignature = standardWebhookSignature(clientSecret, deliveryId, timestamp, body);
  if (previousSecret) standardSignature += ` ${standardWebhookSignature(previousSecret, deliveryId, timestamp, body)}`;
  return {
    'content-type': 'application/json',
    'user-agent': 'Plaza-Webhooks/1.0',
    'x-platform-signature': platformSignature(previousSecret || clientSecret, body),
    'x-platform-event': eventName,
    'x-platform-delivery': deliveryId,
    'x-platform-attempt': String(attemptNumber),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature,
  };
}
