import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver, verifyStandardWebhook, verifyWebhookSignature } from '../src/server/index.js';
import { eventBody, newClientSecret, platformSignatureForTest, standardHeadersForTest } from './support/webhook-fixtures.js';

/** Headers as Plaza sends them during a rotation's overlap: X-Platform-Signature by the old secret, webhook-signature by both, new first. */
function overlapHeaders(body: string, newSecret: string, oldSecret: string, id = 'dlv_rotation') {
  // One moment for both signatures, as Plaza signs them: two clock reads could fall either side of a second.
  const at = new Date();
  const byNew = standardHeadersForTest(body, newSecret, id, at);
  const byOld = standardHeadersForTest(body, oldSecret, id, at);
  return {
    'content-type': 'application/json',
    'x-platform-signature': platformSignatureForTest(body, oldSecret),
    'x-platform-delivery': id,
    'x-platform-attempt': '1',
    ...byNew,
    'webhook-signature': `${byNew['webhook-signature']} ${byOld['webhook-signature']}`,
  };
}

describe('verifying with a list of secrets (rotation)', () => {
  const oldSecret = newClientSecret();
  const newSecret = newClientSecret();
  const body = eventBody();

  it('accepts a request signed by any secret of the list, in either order, and still takes one secret as before', () => {
    for (const signer of [oldSecret, newSecret]) {
      const header = platformSignatureForTest(body, signer);
      expect(verifyWebhookSignature(body, header, [newSecret, oldSecret])).toBe(true);
      expect(verifyWebhookSignature(body, header, [oldSecret, newSecret])).toBe(true);
      expect(verifyStandardWebhook(body, standardHeadersForTest(body, signer, 'dlv_1'), [newSecret, oldSecret])).toBe(true);
    }
    expect(verifyWebhookSignature(body, platformSignatureForTest(body, oldSecret), oldSecret)).toBe(true);
    expect(verifyWebhookSignature(body, platformSignatureForTest(body, oldSecret), newSecret)).toBe(false);
  });

  it('refuses what none of the secrets signed, and an empty list or an empty entry, without throwing', () => {
    const stranger = newClientSecret();
    expect(verifyWebhookSignature(body, platformSignatureForTest(body, stranger), [newSecret, oldSecret])).toBe(false);
    expect(verifyStandardWebhook(body, standardHeadersForTest(body, stranger, 'dlv_1'), [newSecret, oldSecret])).toBe(false);
    const header = platformSignatureForTest(body, oldSecret);
    expect(verifyWebhookSignature(body, header, [])).toBe(false);
    expect(verifyWebhookSignature(body, header, [oldSecret, ''])).toBe(false);
    expect(verifyWebhookSignature(body, header, [oldSecret, 42 as never])).toBe(false);
    expect(verifyStandardWebhook(body, standardHeadersForTest(body, oldSecret, 'dlv_1'), [])).toBe(false);
  });

  it('verifies the overlap headers with the new secret alone (webhook-signature), the old alone (both headers), and both', () => {
    const headers = overlapHeaders(body, newSecret, oldSecret);
    expect(verifyStandardWebhook(body, headers, newSecret)).toBe(true);
    expect(verifyStandardWebhook(body, headers, oldSecret)).toBe(true);
    expect(verifyWebhookSignature(body, headers['x-platform-signature'], oldSecret)).toBe(true);
    expect(verifyWebhookSignature(body, headers['x-platform-signature'], newSecret)).toBe(false);
    expect(verifyStandardWebhook(body, headers, [newSecret, oldSecret])).toBe(true);
  });

  it('lets a receiver given [new, old] accept requests before, during and after the overlap', async () => {
    const receive = createWebhookReceiver({ clientSecret: [newSecret, oldSecret], onEvent: () => undefined });
    const before = eventBody();
    const during = eventBody();
    const after = eventBody();
    const beforeHeaders = { ...standardHeadersForTest(before, oldSecret, 'dlv_a'), 'x-platform-signature': platformSignatureForTest(before, oldSecret) };
    const afterHeaders = { ...standardHeadersForTest(after, newSecret, 'dlv_c'), 'x-platform-signature': platformSignatureForTest(after, newSecret) };
    expect((await receive(Buffer.from(before), beforeHeaders)).status).toBe(200);
    expect((await receive(Buffer.from(during), overlapHeaders(during, newSecret, oldSecret, 'dlv_b'))).status).toBe(200);
    expect((await receive(Buffer.from(after), afterHeaders)).status).toBe(200);
    // A stranger's signature is still refused.
    const stranger = newClientSecret();
    const forged = eventBody();
    expect(
      (await receive(Buffer.from(forged), { ...standardHeadersForTest(forged, stranger, 'dlv_d'), 'x-platform-signature': platformSignatureForTest(forged, stranger) })).status,
    ).toBe(401);
  });

  it('lets a receiver holding only the new secret, or only the old, accept the overlap’s requests (webhook-signature), as standardwebhooks does', async () => {
    for (const held of [newSecret, oldSecret]) {
      const receive = createWebhookReceiver({ clientSecret: held, onEvent: () => undefined });
      const during = eventBody();
      const headers = overlapHeaders(during, newSecret, oldSecret, 'dlv_overlap');
      expect(new StandardWebhook(held.slice('whsec_'.length)).verify(during, headers)).toEqual(JSON.parse(during));
      expect((await receive(Buffer.from(during), headers)).status).toBe(200);
    }
    // After the switch both headers are the new secret's: the old alone is refused.
    const after = eventBody();
    const afterHeaders = { ...standardHeadersForTest(after, newSecret, 'dlv_after'), 'x-platform-signature': platformSignatureForTest(after, newSecret) };
    expect((await createWebhookReceiver({ clientSecret: oldSecret, onEvent: () => undefined })(Buffer.from(after), afterHeaders)).status).toBe(401);
  });

  it('refuses to start with an empty list or an empty entry', () => {
    expect(() => createWebhookReceiver({ clientSecret: [], onEvent: () => undefined })).toThrow(/clientSecret/);
    expect(() => createWebhookReceiver({ clientSecret: [newSecret, ''], onEvent: () => undefined })).toThrow(/clientSecret/);
  });
});
