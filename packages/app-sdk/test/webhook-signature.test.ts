import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhookSignature } from '../src/server/index.js';
import { eventBody, newClientSecret } from './support/webhook-fixtures.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body =
  '{"event":"app.purchased","app_id":"app_01JZ8X4T6B3YQ2N5M7K9P0RSTV","user_id":"u1","purchase_id":"APP-1700000000000-7K3M9Q","amount_vnd":50000,"developer_share_vnd":40000,"timestamp":"2025-01-01T00:00:00.000Z"}';
// Written out independently of the SDK: key = the secret string's UTF-8 bytes, message = the body bytes.
const expectedHex = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
const validHeader = `sha256=${expectedHex}`;

describe('verifyWebhookSignature', () => {
  it('accepts the signature of the exact body, as a string or as bytes', () => {
    expect(verifyWebhookSignature(body, validHeader, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body, 'utf8'), validHeader, secret)).toBe(true);
  });

  it('signs what the contract describes', () => {
    expect(signWebhookBody(body, secret)).toBe(validHeader);
  });

  it('handles non-ASCII bodies as UTF-8 bytes', () => {
    const unicodeBody = eventBody({ user_id: 'người-dùng-ü' });
    const clientSecret = newClientSecret();
    const header = `sha256=${createHmac('sha256', clientSecret).update(Buffer.from(unicodeBody, 'utf8')).digest('hex')}`;
    expect(verifyWebhookSignature(Buffer.from(unicodeBody, 'utf8'), header, clientSecret)).toBe(true);
  });

  it('refuses a body that differs by one byte', () => {
    const changed = Buffer.from(body, 'utf8');
    changed.writeUInt8(changed.readUInt8(changed.length - 3) ^ 0x01, changed.length - 3);
    expect(verifyWebhookSignature(changed, validHeader, secret)).toBe(false);
    expect(verifyWebhookSignature(body.replace('50000', '50001'), validHeader, secret)).toBe(false);
  });

  it('refuses re-serialized JSON (same data, other bytes)', () => {
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    expect(verifyWebhookSignature(reserialized, validHeader, secret)).toBe(false);
  });

  it('refuses another secret', () => {
    expect(verifyWebhookSignature(body, validHeader, newClientSecret())).toBe(false);
  });

  it.each([
    ['another prefix', `sha1=${expectedHex}`],
    ['no prefix', expectedHex],
    ['upper-case prefix', `SHA256=${expectedHex}`],
    ['upper-case hex', `sha256=${expectedHex.toUpperCase()}`],
    ['one hex digit short', validHeader.slice(0, -1)],
    ['one hex digit more', `${validHeader}0`],
    ['surrounding whitespace', ` ${validHeader} `],
    ['base64 instead of hex', `sha256=${createHmac('sha256', secret).update(body).digest('base64')}`],
    ['empty', ''],
    ['prefix only', 'sha256='],
  ])('refuses a header with %s', (_case, header) => {
    expect(verifyWebhookSignature(body, header, secret)).toBe(false);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 12345],
    ['an array of the valid value', [validHeader]],
    ['an object', { toString: () => validHeader }],
  ])('returns false without throwing for a header that is %s', (_case, header) => {
    expect(() => verifyWebhookSignature(body, header as never, secret)).not.toThrow();
    expect(verifyWebhookSignature(body, header as never, secret)).toBe(false);
  });

  it('returns false without throwing for a missing body or secret', () => {
    expect(verifyWebhookSignature(undefined as never, validHeader, secret)).toBe(false);
    expect(verifyWebhookSignature({} as never, validHeader, secret)).toBe(false);
    expect(verifyWebhookSignature(body, validHeader, '')).toBe(false);
    expect(verifyWebhookSignature(body, validHeader, undefined as never)).toBe(false);
  });
});
