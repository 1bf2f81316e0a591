import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_PREFIX = 'sha256=';
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function isBody(value: unknown): value is Buffer | string {
  return typeof value === 'string' || Buffer.isBuffer(value);
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Length is not secret (always 71 bytes for a valid header); timingSafeEqual needs equal lengths.
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole client secret as UTF-8. */
export function signWebhookBody(rawBody: Buffer | string, clientSecret: string): string {
  return `${SIGNATURE_PREFIX}${createHmac('sha256', clientSecret).update(rawBody).digest('hex')}`;
}

/**
 * Checks `X-Platform-Signature` against the raw request body, exactly as received. Compares the whole
 * header value with `sha256=<lowercase hex>` in constant time. Never throws: anything unexpected
 * (missing header, other prefix, upper-case hex, wrong length, non-string values) is `false`.
 */
export function verifyWebhookSignature(
  rawBody: Buffer | string,
  signatureHeader: string | undefined | null,
  clientSecret: string,
): boolean {
  try {
    if (!isBody(rawBody) || typeof signatureHeader !== 'string' || typeof clientSecret !== 'string') return false;
    if (clientSecret === '' || !signatureHeader.startsWith(SIGNATURE_PREFIX)) return false;
    return constantTimeEqual(signatureHeader, signWebhookBody(rawBody, clientSecret));
  } catch {
    return false;
  }
}

/** Request headers: Node's `req.headers` (lower-case names) or a fetch `Headers`. */
export type StandardWebhookHeaders = Headers | { readonly [name: string]: string | string[] | undefined };

export interface StandardWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** Clock to compare against; for tests. */
  now?: () => Date;
}

function standardWebhookKey(clientSecret: string): Buffer {
  return Buffer.from(clientSecret.startsWith('whsec_') ? clientSecret.slice('whsec_'.length) : clientSecret, 'base64');
}

function header(headers: StandardWebhookHeaders, name: string): string | undefined {
  const value = typeof headers.get === 'function' ? (headers as Headers).get(name) : (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`):
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the base64-decoded secret after
 * `whsec_`. Unlike `X-Platform-Signature`, the timestamp is signed, so a captured request cannot be
 * replayed after `toleranceSeconds`. Never throws.
 */
export function verifyStandardWebhook(
  rawBody: Buffer | string,
  headers: StandardWebhookHeaders,
  clientSecret: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = () => new Date() }: StandardWebhookOptions = {},
): boolean {
  try {
    if (!isBody(rawBody) || typeof clientSecret !== 'string' || clientSecret === '' || !headers) return false;
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;

    const ageSeconds = Math.abs(Math.floor(now().getTime() / 1000) - Number(timestamp));
    if (!(ageSeconds <= toleranceSeconds)) return false;

    const signedContent = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), Buffer.from(rawBody)]);
    const expected = createHmac('sha256', standardWebhookKey(clientSecret)).update(signedContent).digest('base64');
    // The header may list several space-separated signatures (e.g. during secret rotation).
    return signatures.split(' ').some((entry) => {
      const [version, signature] = entry.split(',', 2);
      return version === 'v1' && signature !== undefined && constantTimeEqual(signature, expected);
    });
  } catch {
    return false;
  }
}
