import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyStandardWebhook, verifyWebhookSignature } from '../src/server/index.js';
import { newClientSecret, platformSignatureForTest } from './support/webhook-fixtures.js';

// Issue 7: the verifier never throws, accepts exactly the correctly signed body, and nothing else.

const body = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: 'binary', maxLength: 512 }),
);
const secret = fc.oneof(fc.constant(newClientSecret()), fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }));
const bytesOf = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b);

describe('verifyWebhookSignature under arbitrary input', () => {
  it('accepts the correct signature of any body under any secret, given as a string or as bytes', () => {
    fc.assert(
      fc.property(body, secret, (raw, key) => {
        const header = platformSignatureForTest(bytesOf(raw), key);
        expect(verifyWebhookSignature(raw, header, key)).toBe(true);
        expect(verifyWebhookSignature(bytesOf(raw), header, key)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects any single-byte change of the body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 1024 }), fc.nat(), fc.integer({ min: 1, max: 255 }), secret, (bytes, at, flip, key) => {
        const original = Buffer.from(bytes);
        const header = platformSignatureForTest(original, key);
        const changed = Buffer.from(original);
        const i = at % changed.length;
        changed.writeUInt8(changed.readUInt8(i) ^ flip, i);
        expect(verifyWebhookSignature(changed, header, key)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects a body with one byte added or removed', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.nat(), fc.integer({ min: 0, max: 255 }), secret, (bytes, at, extra, key) => {
        const original = Buffer.from(bytes);
        const header = platformSignatureForTest(original, key);
        const i = at % original.length;
        expect(verifyWebhookSignature(Buffer.concat([original.subarray(0, i), original.subarray(i + 1)]), header, key)).toBe(false);
        expect(verifyWebhookSignature(Buffer.concat([original.subarray(0, i), Buffer.from([extra]), original.subarray(i)]), header, key)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('never throws and accepts no header but the exact one, whatever the header string', () => {
    const correctish = (valid: string) =>
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 100 }),
        fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 64, maxLength: 64 }).map((hex) => `sha256=${hex}`),
        // The valid header with one character changed, cased, padded or cut.
        fc
          .tuple(fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }))
          .map(([at, c]) => valid.slice(0, at % valid.length) + c + valid.slice((at % valid.length) + 1)),
        fc.constantFrom(
          valid.toUpperCase(),
          ` ${valid}`,
          `${valid} `,
          `${valid}\n`,
          valid.slice(0, -1),
          `${valid}0`,
          valid.replace('sha256=', 'sha1='),
          `${valid},${valid}`,
          valid.replace('sha256=', ''),
        ),
      );
    fc.assert(
      fc.property(body, secret, (raw, key) => {
        const valid = platformSignatureForTest(bytesOf(raw), key);
        fc.assert(
          fc.property(correctish(valid), (header) => {
            expect(verifyWebhookSignature(raw, header, key)).toBe(header === valid);
          }),
          { numRuns: 20 },
        );
      }),
      { numRuns: 50 },
    );
  });

  it('never throws on values of the wrong type', () => {
    const anything = fc.oneof(fc.anything(), fc.constant(undefined), fc.constant(null), body);
    fc.assert(
      fc.property(anything, anything, anything, (raw, header, key) => {
        expect(() => verifyWebhookSignature(raw as never, header as never, key as never)).not.toThrow();
        expect(typeof verifyWebhookSignature(raw as never, header as never, key as never)).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifyStandardWebhook under arbitrary input', () => {
  const now = new Date('2025-06-01T00:00:00Z');
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const sign = (id: string, raw: Buffer | string, key: string) =>
    `v1,${createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
      .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), bytesOf(raw)]))
      .digest('base64')}`;

  it('accepts exactly the signed body and never throws on arbitrary headers', () => {
    const anyHeader = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.constant(undefined), fc.array(fc.string(), { maxLength: 2 }));
    fc.assert(
      fc.property(
        body,
        fc.string({ minLength: 1, maxLength: 30 }).filter((id) => !id.includes('.')),
        anyHeader,
        anyHeader,
        anyHeader,
        (raw, id, h1, h2, h3) => {
          const key = newClientSecret();
          const headers = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': sign(id, raw, key) };
          expect(verifyStandardWebhook(raw, headers, key, { now: () => now })).toBe(true);
          const forged = { 'webhook-id': h1 ?? id, 'webhook-timestamp': h2 ?? timestamp, 'webhook-signature': h3 } as Record<string, string>;
          expect(() => verifyStandardWebhook(raw, forged, key, { now: () => now })).not.toThrow();
          expect(verifyStandardWebhook(raw, forged, key, { now: () => now })).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
