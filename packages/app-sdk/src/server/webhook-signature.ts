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

/**
 * One client secret, or several while Plaza rotates it (the new one and the one it replaces): a
 * request verifies when any of them signed it, so a receiver holding both never fails mid-rotation.
 */
export type ClientSecrets = string | readonly string[];

/** The secrets to try, or null when there are none usable (an empty list, an empty or non-string entry). */
export function clientSecretList(clientSecret: ClientSecrets): readonly string[] | null {
  const list = typeof clientSecret === 'string' ? [clientSecret] : clientSecret;
  if (!Array.isArray(list) || list.length === 0 || !list.every((secret) => typeof secret === 'string' && secret !== '')) return null;
  return list;
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
export function verifyWebhookSignature(rawBody: Buffer | string, signatureHeader: string | undefined | null, clientSecret: ClientSecrets): boolean {
  try {
    const secrets = clientSecretList(clientSecret);
    if (!isBody(rawBody) || typeof signatureHeader !== 'string' || secrets === null) return false;
    if (!signatureHeader.startsWith(SIGNATURE_PREFIX)) return false;
    // Every secret is tried (no early exit), so the time taken does not tell which one matched.
    return secrets.map((secret) => constantTimeEqual(signatureHeader, signWebhookBody(rawBody, secret))).includes(true);
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
  clientSecret: ClientSecrets,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = () => new Date() }: StandardWebhookOptions = {},
): boolean {
  try {
    const secrets = clientSecretList(clientSecret);
    if (!isBody(rawBody) || secrets === null || !headers) return false;
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;

    const ageSeconds = Math.abs(Math.floor(now().getTime() / 1000) - Number(timestamp));
    if (!(ageSeconds <= toleranceSeconds)) return false;

    const signedContent = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), Buffer.from(rawBody)]);
    const expected = secrets.map((secret) => createHmac('sha256', standardWebhookKey(secret)).update(signedContent).digest('base64'));
    // The header may list several space-separated signatures (during a rotation Plaza sends `v1,<new> v1,<old>`).
    return signatures.split(' ').some((entry) => {
      const [version, signature] = entry.split(',', 2);
      return version === 'v1' && signature !== undefined && expected.map((mac) => constantTimeEqual(signature, mac)).includes(true);
    });
  } catch {
    return false;
  }
}
