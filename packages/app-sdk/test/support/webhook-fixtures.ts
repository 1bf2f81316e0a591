import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A secret shaped like the platform's: `whsec_` + base64 of 32 bytes. */
export const newClientSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The contract's X-Platform-Signature, computed here independently of the SDK. */
export function platformSignatureForTest(body: string | Buffer, clientSecret: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(clientSecret, 'utf8')).update(body).digest('hex')}`;
}

export function eventBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event: 'app.purchased',
    app_id: 'app_01JZ8X4T6B3YQ2N5M7K9P0RSTV',
    user_id: 'usr_42',
    purchase_id: `APP-${Date.now()}-${randomBytes(3).toString('hex').toUpperCase()}`,
    amount_vnd: 50_000,
    developer_share_vnd: 40_000,
    timestamp: new Date().toISOString(),
    ...overrides,
  });
}

/** The Standard Webhooks headers, signed by the standardwebhooks package (not the SDK) at `at`. */
export function standardHeadersForTest(body: string, clientSecret: string, id: string, at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(clientSecret).sign(id, at, body),
  };
}

/** Headers as the platform sends them for one attempt of one delivery, signed at `at` (default now). */
export function deliveryHeaders(body: string, clientSecret: string, { deliveryId = `dlv_${randomBytes(6).toString('hex')}`, attempt = 1, at = new Date() } = {}) {
  const event = (JSON.parse(body) as { event: string }).event;
  return {
    'content-type': 'application/json',
    'x-platform-signature': platformSignatureForTest(body, clientSecret),
    'x-platform-event': event,
    'x-platform-delivery': deliveryId,
    'x-platform-attempt': String(attempt),
    ...standardHeadersForTest(body, clientSecret, deliveryId, at),
  };
}
