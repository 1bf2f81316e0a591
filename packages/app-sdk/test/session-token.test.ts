import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionTokenError, type SessionTokenErrorCode, createSessionVerifier } from '../src/server/index.js';
import { startServer } from './support/http-server.js';
import { type JwksServer, type SigningKey, base64url, newSigningKey, platformToken, startJwksServer } from './support/jwks-server.js';

const platformOrigin = 'https://plaza.example';
const appId = 'app_01JZ8X4T6B3YQ2N5M7K9P0RSTV';

async function refusal(promise: Promise<unknown>): Promise<SessionTokenError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SessionTokenError);
  return error as SessionTokenError;
}

describe('createSessionVerifier', () => {
  let current: SigningKey;
  let next: SigningKey;
  let jwks: JwksServer;
  let verifier: ReturnType<typeof createSessionVerifier>;

  beforeAll(async () => {
    current = await newSigningKey('key-2025-01');
    next = await newSigningKey('key-2025-07');
    jwks = await startJwksServer([current, next]);
    verifier = createSessionVerifier({ platformOrigin, appId, jwksUrl: `${jwks.url}/.well-known/jwks.json` });
  });
  afterAll(() => jwks.close());

  it('verifies a platform token and returns the session', async () => {
    const token = await platformToken(current, { iss: platformOrigin, aud: appId, sub: 'usr_7', jti: 'jti_abc' });
    const session = await verifier.verify(token);
    expect(session).toMatchObject({ userId: 'usr_7', appId, tokenId: 'jti_abc' });
    expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now() + 4 * 60 * 1000);
  });

  it('verifies tokens signed by either key while both are published (rotation)', async () => {
    await expect(verifier.verify(await platformToken(current, { iss: platformOrigin, aud: appId }))).resolves.toBeDefined();
    await expect(verifier.verify(await platformToken(next, { iss: platformOrigin, aud: appId }))).resolves.toBeDefined();
  });

  it('fetches the key set once and reuses it', async () => {
    const server = await startJwksServer([current]);
    const cached = createSessionVerifier({ platformOrigin, appId, jwksUrl: `${server.url}/.well-known/jwks.json` });
    for (let i = 0; i < 3; i += 1) await cached.verify(await platformToken(current, { iss: platformOrigin, aud: appId }));
    expect(server.requests).toBe(1);
    await server.close();
  });

  it('picks up a key published after its last fetch (the platform rotated)', async () => {
    const server = await startJwksServer([current]);
    const rotating = createSessionVerifier({ platformOrigin, appId, jwksUrl: `${server.url}/.well-known/jwks.json`, jwksCooldownMs: 0 });
    await rotating.verify(await platformToken(current, { iss: platformOrigin, aud: appId }));
    const rotated = await newSigningKey('key-rotated');
    server.keys = [rotated, current];
    await expect(rotating.verify(await platformToken(rotated, { iss: platformOrigin, aud: appId }))).resolves.toBeDefined();
    expect(server.requests).toBe(2);
    await server.close();
  });

  it('derives the JWKS URL from the platform origin by default', async () => {
    const origin = jwks.url;
    const byDefault = createSessionVerifier({ platformOrigin: `${origin}/`, appId });
    await expect(byDefault.verify(await platformToken(current, { iss: origin, aud: appId }))).resolves.toMatchObject({ appId });
  });

  const cases: [string, () => Promise<string>, SessionTokenErrorCode][] = [
    ['an expired token', () => platformToken(current, { iss: platformOrigin, aud: appId, expiresIn: -60 }), 'EXPIRED'],
    ['a token for another app', () => platformToken(current, { iss: platformOrigin, aud: 'app_01JZ8X4T6B3YQ2N5M7K9P0OTHR' }), 'WRONG_AUDIENCE'],
    ['a token from another issuer', () => platformToken(current, { iss: 'https://evil.example', aud: appId }), 'WRONG_ISSUER'],
    ['an issuer that only looks like the platform', () => platformToken(current, { iss: 'https://plaza.example.evil.com', aud: appId }), 'WRONG_ISSUER'],
    ['a key the JWKS does not list', async () => platformToken(await newSigningKey('key-unknown'), { iss: platformOrigin, aud: appId }), 'UNKNOWN_KEY'],
    [
      'a listed kid with a signature from another key',
      async () => platformToken({ ...(await newSigningKey('x')), kid: current.kid }, { iss: platformOrigin, aud: appId }),
      'INVALID',
    ],
    [
      'alg none',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        const claims = { iss: platformOrigin, aud: appId, sub: 'usr_42', jti: 'j', iat: now, exp: now + 300 };
        return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
      },
      'INVALID',
    ],
    [
      'alg none with a listed kid',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        const claims = { iss: platformOrigin, aud: appId, sub: 'usr_42', jti: 'j', iat: now, exp: now + 300 };
        return `${base64url({ alg: 'none', kid: current.kid })}.${base64url(claims)}.`;
      },
      'INVALID',
    ],
    [
      'HS256 keyed with a shared secret',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'HS256', kid: current.kid })
          .setIssuer(platformOrigin)
          .setAudience(appId)
          .setSubject('usr_42')
          .setJti('j')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!')),
      'INVALID',
    ],
    [
      'HS256 keyed with the public key (algorithm confusion)',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'HS256', kid: current.kid })
          .setIssuer(platformOrigin)
          .setAudience(appId)
          .setSubject('usr_42')
          .setJti('j')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(JSON.stringify(current.publicJwk))),
      'INVALID',
    ],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await platformToken(current, { iss: platformOrigin, aud: appId })).split('.');
        const now = Math.floor(Date.now() / 1000);
        return `${header}.${base64url({ iss: platformOrigin, aud: appId, sub: 'usr_admin', jti: 'j', iat: now, exp: now + 300 })}.${signature}`;
      },
      'INVALID',
    ],
    [
      'a token without jti',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: current.kid })
          .setIssuer(platformOrigin)
          .setAudience(appId)
          .setSubject('u')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(current.privateKey),
      'INVALID',
    ],
    [
      'a token without exp',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: current.kid })
          .setIssuer(platformOrigin)
          .setAudience(appId)
          .setSubject('u')
          .setJti('j')
          .setIssuedAt()
          .sign(current.privateKey),
      'INVALID',
    ],
    ['garbage', async () => 'not.a.jwt', 'INVALID'],
    ['an empty string', async () => '', 'INVALID'],
  ];

  it.each(cases)('refuses %s', async (_case, makeToken, code) => {
    const token = await makeToken();
    const error = await refusal(verifier.verify(token));
    expect(error.code).toBe(code);
    if (token) expect(error.message).not.toContain(token);
  });

  it('refuses a non-string token', async () => {
    expect((await refusal(verifier.verify(undefined as never))).code).toBe('INVALID');
  });

  it('reports KEYS_UNAVAILABLE when the JWKS cannot be fetched, so the app can answer 503 rather than 401', async () => {
    const down = await startServer((_req, res) => res.writeHead(500).end());
    const unreachable = createSessionVerifier({ platformOrigin, appId, jwksUrl: `${down.url}/.well-known/jwks.json` });
    const token = await platformToken(current, { iss: platformOrigin, aud: appId });
    expect((await refusal(unreachable.verify(token))).code).toBe('KEYS_UNAVAILABLE');
    await down.close();
    expect((await refusal(unreachable.verify(token))).code).toBe('KEYS_UNAVAILABLE');
  });

  it('refuses a platformOrigin that is not an origin, and a missing appId', () => {
    expect(() => createSessionVerifier({ platformOrigin: 'plaza.example', appId })).toThrow(/platformOrigin/);
    expect(() => createSessionVerifier({ platformOrigin: 'https://plaza.example/api', appId })).toThrow(/platformOrigin/);
    expect(() => createSessionVerifier({ platformOrigin, appId: '' })).toThrow(/appId/);
  });
});
