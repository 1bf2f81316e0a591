import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyStandardWebhook } from '../src/server/index.js';
import { eventBody, newClientSecret } from './support/webhook-fixtures.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function signedWithPackage(clientSecret: string, body: string, at = new Date()) {
  const id = 'dlv_01JZ8X4T6B3YQ2N5M7K9P0RSTV';
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(clientSecret).sign(id, at, body),
  };
}

describe('verifyStandardWebhook against the standardwebhooks package', () => {
  const clientSecret = newClientSecret();
  const body = eventBody();

  it('verifies what the package signs', () => {
    expect(verifyStandardWebhook(body, signedWithPackage(clientSecret, body), clientSecret)).toBe(true);
    expect(verifyStandardWebhook(Buffer.from(body), signedWithPackage(clientSecret, body), clientSecret)).toBe(true);
  });

  it('accepts fetch Headers too', () => {
    expect(verifyStandardWebhook(body, new Headers(signedWithPackage(clientSecret, body)), clientSecret)).toBe(true);
  });

  it('produces headers the package accepts: the platform key derivation, written out here', () => {
    const id = 'dlv_roundtrip';
    const timestamp = String(nowSeconds());
    const key = Buffer.from(clientSecret.slice('whsec_'.length), 'base64');
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
    };
    expect(verifyStandardWebhook(body, headers, clientSecret)).toBe(true);
    expect(new Webhook(clientSecret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('accepts a header listing several signatures when one matches', () => {
    const headers = signedWithPackage(clientSecret, body);
    const other = new Webhook(newClientSecret()).sign(headers['webhook-id'], new Date(), body);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` }, clientSecret)).toBe(true);
  });

  it('refuses a changed body, another secret, or a changed id', () => {
    const headers = signedWithPackage(clientSecret, body);
    expect(verifyStandardWebhook(`${body} `, headers, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, headers, newClientSecret())).toBe(false);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-id': 'dlv_other' }, clientSecret)).toBe(false);
  });

  it('refuses timestamps outside the tolerance (replay), both ways', () => {
    const tenMinutes = 10 * 60 * 1000;
    const old = signedWithPackage(clientSecret, body, new Date(Date.now() - tenMinutes));
    const future = signedWithPackage(clientSecret, body, new Date(Date.now() + tenMinutes));
    expect(verifyStandardWebhook(body, old, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, future, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, old, clientSecret, { toleranceSeconds: 15 * 60 })).toBe(true);
    // The package agrees that an old timestamp is a replay.
    expect(() => new Webhook(clientSecret).verify(body, old)).toThrow();
  });

  it('returns false without throwing for missing or malformed headers', () => {
    const headers = signedWithPackage(clientSecret, body);
    expect(verifyStandardWebhook(body, {}, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-signature': 'v2,abc' }, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-signature': 'v1' }, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-timestamp': 'soon' }, clientSecret)).toBe(false);
    expect(verifyStandardWebhook(body, undefined as never, clientSecret)).toBe(false);
  });
});
