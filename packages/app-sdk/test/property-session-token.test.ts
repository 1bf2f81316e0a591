import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokenError, createSessionVerifier } from '../src/server/index.js';
import { type JwksServer, type SigningKey, base64url, newSigningKey, platformToken, startJwksServer } from './support/jwks-server.js';

// Issue 7: any token string yields a coded rejection, never an uncaught exception or a hang.

const platformOrigin = 'https://plaza.example';
const appId = 'app_01JZ8X4T6B3YQ2N5M7K9P0RSTV';
const CODES = ['EXPIRED', 'WRONG_AUDIENCE', 'WRONG_ISSUER', 'UNKNOWN_KEY', 'INVALID', 'KEYS_UNAVAILABLE'];

let key: SigningKey;
let jwks: JwksServer;
let verifier: ReturnType<typeof createSessionVerifier>;

beforeAll(async () => {
  key = await newSigningKey('key-1');
  jwks = await startJwksServer([key]);
  verifier = createSessionVerifier({ platformOrigin, appId, jwksUrl: `${jwks.url}/.well-known/jwks.json` });
});
afterAll(() => jwks.close());

/** Settles within a deadline, so a hang fails the property rather than the file. */
async function outcome(token: unknown): Promise<unknown> {
  const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error('verify did not settle within 5 s')), 5000));
  return Promise.race([
    verifier.verify(token as string).then(
      () => 'accepted',
      (error: unknown) => error,
    ),
    deadline,
  ]);
}

function expectCodedRejection(result: unknown) {
  expect(result).toBeInstanceOf(SessionTokenError);
  expect(CODES).toContain((result as SessionTokenError).code);
}

const segment = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue().map(base64url),
  fc.constant(''),
);
const header = fc.record(
  {
    alg: fc.oneof(fc.constantFrom('ES256', 'none', 'HS256', 'RS256', 'ES384', 'EdDSA', ''), fc.jsonValue()),
    kid: fc.oneof(fc.constantFrom('key-1', 'key-unknown', ''), fc.jsonValue()),
    typ: fc.constantFrom('JWT', 'at+jwt'),
    crit: fc.oneof(fc.constant(['exp']), fc.jsonValue()),
    b64: fc.boolean(),
    jwk: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
const claims = fc.record(
  {
    iss: fc.oneof(fc.constant(platformOrigin), fc.jsonValue()),
    aud: fc.oneof(fc.constant(appId), fc.constant([appId, 'x']), fc.jsonValue()),
    sub: fc.oneof(fc.constant('usr_1'), fc.jsonValue()),
    jti: fc.oneof(fc.constant('j'), fc.jsonValue()),
    iat: fc.oneof(fc.constant(Math.floor(Date.now() / 1000)), fc.double(), fc.jsonValue()),
    exp: fc.oneof(fc.constant(Math.floor(Date.now() / 1000) + 300), fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 1e308), fc.jsonValue()),
    nbf: fc.oneof(fc.double(), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

describe('createSessionVerifier under arbitrary tokens', () => {
  it('refuses any string with a coded SessionTokenError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.')),
        ),
        async (token) => {
          expectCodedRejection(await outcome(token));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses JWT-shaped tokens with arbitrary headers, claims and signatures, unless truly signed', async () => {
    const validSignature = (await platformToken(key, { iss: platformOrigin, aud: appId })).split('.')[2];
    await fc.assert(
      fc.asyncProperty(header, claims, fc.oneof(fc.constant(validSignature), segment), async (h, c, signature) => {
        expectCodedRejection(await outcome(`${base64url(h)}.${base64url(c)}.${signature}`));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses non-string tokens with INVALID', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything().filter((v) => typeof v !== 'string'),
        async (token) => {
          const result = await outcome(token);
          expectCodedRejection(result);
          expect((result as SessionTokenError).code).toBe('INVALID');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('accepts a real token and refuses it with any single character changed', async () => {
    const token = await platformToken(key, { iss: platformOrigin, aud: appId });
    expect(await outcome(token)).toBe('accepted');
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ '), async (at, c) => {
        const changed = token.slice(0, at) + c + token.slice(at + 1);
        fc.pre(changed !== token);
        const result = await outcome(changed);
        if (result === 'accepted') {
          const [h, p, s] = changed.split('.');
          const [h0, p0, s0] = token.split('.');
          // base64url's last character may carry unused bits: only a change that decodes to the same bytes may pass.
          expect([h, p, s].map((x) => Buffer.from(x ?? '', 'base64url').toString('hex'))).toEqual([h0, p0, s0].map((x) => Buffer.from(x ?? '', 'base64url').toString('hex')));
        } else expectCodedRejection(result);
      }),
      { numRuns: 300 },
    );
  });
});
