import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { parseOrigin } from '../origin.js';
import type { VerifiedSession } from '../types.js';
import { SDK_USER_AGENT } from '../version.js';

export type SessionTokenErrorCode =
  | 'EXPIRED'
  | 'WRONG_AUDIENCE'
  | 'WRONG_ISSUER'
  | 'UNKNOWN_KEY'
  | 'INVALID'
  /** The platform's keys could not be fetched: not the token's fault, so answer 503 rather than 401. */
  | 'KEYS_UNAVAILABLE';

const MESSAGES: Record<SessionTokenErrorCode, string> = {
  EXPIRED: 'The session token has expired; ask the platform for a new session',
  WRONG_AUDIENCE: 'The session token was issued for another app',
  WRONG_ISSUER: 'The session token was not issued by the expected platform',
  UNKNOWN_KEY: "The session token is signed with a key the platform's JWKS does not list",
  INVALID: 'The session token is malformed or its signature is invalid',
  KEYS_UNAVAILABLE: "The platform's signing keys could not be fetched",
};

/** Why a session token was refused. The message is safe to log and to show; it never carries token contents. */
export class SessionTokenError extends Error {
  readonly code: SessionTokenErrorCode;

  constructor(code: SessionTokenErrorCode) {
    super(MESSAGES[code]);
    this.name = 'SessionTokenError';
    this.code = code;
  }
}

export interface SessionVerifierOptions {
  /** The platform origin, exactly as in the token's `iss`, e.g. `https://plaza.example`. */
  platformOrigin: string;
  /** Your app's id (`app_...`), the token's `aud`. */
  appId: string;
  /** Default `${platformOrigin}/.well-known/jwks.json`. */
  jwksUrl?: string;
  /** Allowed clock skew between your server and the platform. Default 5 seconds. */
  clockToleranceSeconds?: number;
  /**
   * After a fetch, how long a token with an unknown `kid` is refused without fetching the key set
   * again. Short, because the platform signs with a new key as soon as it rotates. Default 5,000 ms.
   */
  jwksCooldownMs?: number;
}

export interface SessionVerifier {
  /** Resolves with the session, or rejects with a {@link SessionTokenError}. */
  verify(token: string): Promise<VerifiedSession>;
}

/** Marks failures to get the key set, so they are not blamed on the token. */
class KeysUnavailable extends Error {}

function keySetFrom(jwksUrl: URL, cooldownDuration: number): JWTVerifyGetKey {
  const remoteKeySet = createRemoteJWKSet(jwksUrl, { cooldownDuration, headers: { 'user-agent': SDK_USER_AGENT } });
  return async (header, token) => {
    try {
      return await remoteKeySet(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw new KeysUnavailable();
    }
  };
}

function codeFor(error: unknown): SessionTokenErrorCode {
  if (error instanceof KeysUnavailable) return 'KEYS_UNAVAILABLE';
  if (error instanceof errors.JWTExpired) return 'EXPIRED';
  if (error instanceof errors.JWKSNoMatchingKey) return 'UNKNOWN_KEY';
  if (error instanceof errors.JWTClaimValidationFailed && error.reason === 'check_failed') {
    if (error.claim === 'aud') return 'WRONG_AUDIENCE';
    if (error.claim === 'iss') return 'WRONG_ISSUER';
  }
  return 'INVALID';
}

function requireOrigin(platformOrigin: string): string {
  const parsed = parseOrigin(platformOrigin);
  if (!parsed) {
    throw new TypeError(`platformOrigin must be an origin such as https://plaza.example (got ${JSON.stringify(platformOrigin)})`);
  }
  return new URL(platformOrigin).origin;
}

/**
 * Verifies session tokens from INIT_SESSION on your backend: ES256 only, signed by a key from the
 * platform's JWKS (fetched once and cached; fetched again when an unknown `kid` shows up, so key
 * rotation needs nothing from you), issued by `platformOrigin`, for `appId`, not expired.
 */
export function createSessionVerifier({ platformOrigin, appId, jwksUrl, clockToleranceSeconds = 5, jwksCooldownMs = 5_000 }: SessionVerifierOptions): SessionVerifier {
  const issuer = requireOrigin(platformOrigin);
  if (typeof appId !== 'string' || appId === '') throw new TypeError('appId is required (your app id, app_...)');
  const keySet = keySetFrom(new URL(jwksUrl ?? `${issuer}/.well-known/jwks.json`), jwksCooldownMs);

  return {
    async verify(token) {
      if (typeof token !== 'string' || token === '') throw new SessionTokenError('INVALID');
      try {
        const { payload } = await jwtVerify(token, keySet, {
          algorithms: ['ES256'],
          issuer,
          audience: appId,
          requiredClaims: ['sub', 'jti', 'iat', 'exp'],
          clockTolerance: clockToleranceSeconds,
        });
        const { sub, jti, exp } = payload;
        if (typeof sub !== 'string' || sub === '' || typeof jti !== 'string' || typeof exp !== 'number') {
          throw new SessionTokenError('INVALID');
        }
        return { userId: sub, appId, tokenId: jti, expiresAt: new Date(exp * 1000) };
      } catch (error) {
        if (error instanceof SessionTokenError) throw error;
        throw new SessionTokenError(codeFor(error));
      }
    },
  };
}
