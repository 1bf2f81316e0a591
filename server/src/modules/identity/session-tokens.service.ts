import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import type { DataSource } from 'typeorm';
import type { Config } from '../../config.js';
import { openSecret, sealSecret } from '../../platform/secret-crypto.js';
import { SigningKey } from './signing-key.entity.js';

/** Session tokens live 5 minutes: long enough for an app to verify one at load, short enough that a leaked one is soon worthless (apps keep their own sessions after). */
export const SESSION_TOKEN_TTL_SECONDS = 5 * 60;
/** A superseded key stays published this long, so every token it signed can still be verified. */
const SUPERSEDED_KEY_PUBLISHED_MS = 2 * SESSION_TOKEN_TTL_SECONDS * 1000;
/** Other processes may add a key; look again this often. */
const KEY_CACHE_MS = 30_000;

export interface SessionToken {
  token: string;
  jti: string;
  expiresAt: Date;
}

/**
 * Issues the session tokens apps receive in INIT_SESSION: JWTs signed ES256 with `kid`,
 * `iss` = the platform origin, `aud` = the app id, `sub` = the user id, `jti`, 5 minutes.
 */
export class SessionTokenService {
  private cache: { at: number; keys: SigningKey[] } | undefined;

  constructor(
    private readonly db: DataSource,
    private readonly config: Config,
  ) {}

  private async keys(): Promise<SigningKey[]> {
    if (this.cache && Date.now() - this.cache.at < KEY_CACHE_MS) return this.cache.keys;
    let keys = await this.db.getRepository(SigningKey).find({ order: { createdAt: 'DESC' } });
    if (!keys.some((k) => !k.supersededAt)) {
      await this.addKey();
      keys = await this.db.getRepository(SigningKey).find({ order: { createdAt: 'DESC' } });
    }
    this.cache = { at: Date.now(), keys };
    return keys;
  }

  /**
   * Adds a new signing key and makes it the one that signs; the previous key stays published so
   * tokens it signed keep verifying until they expire. Also how the very first key is made.
   */
  async addKey(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `sk_${randomUUID()}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' });
    const sealed = sealSecret(privateJwk, kid, this.config.encryptionKeys[0]);
    await this.db.transaction(async (manager) => {
      // Concurrent first starts of several processes: one key wins, the others only supersede it.
      await manager.query('LOCK TABLE session_signing_keys IN SHARE ROW EXCLUSIVE MODE');
      await manager.query('UPDATE session_signing_keys SET superseded_at = now() WHERE superseded_at IS NULL');
      await manager.insert(SigningKey, { kid, publicJwk, encryptionKeyId: sealed.keyId, sealedPrivateJwk: sealed.ciphertext, createdAt: new Date(), supersededAt: null });
    });
    this.cache = undefined;
    return kid;
  }

  async issue(appId: string, userId: string): Promise<SessionToken> {
    const signing = (await this.keys()).find((k) => !k.supersededAt)!;
    const privateJwk = JSON.parse(openSecret({ keyId: signing.encryptionKeyId, ciphertext: signing.sealedPrivateJwk }, signing.kid, this.config.encryptionKeys)) as JWK;
    const key = await importJWK(privateJwk, 'ES256');
    const jti = randomUUID();
    const issuedAt = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: signing.kid, typ: 'JWT' })
      .setIssuer(this.config.platformOrigin)
      .setAudience(appId)
      .setSubject(userId)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + SESSION_TOKEN_TTL_SECONDS)
      .sign(key);
    return { token, jti, expiresAt: new Date((issuedAt + SESSION_TOKEN_TTL_SECONDS) * 1000) };
  }

  /** The public keys that verify tokens still in their lifetime: the signing key and recently superseded ones. */
  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    const keys = await this.keys();
    const published = keys.filter((k) => !k.supersededAt || Date.now() - k.supersededAt.getTime() < SUPERSEDED_KEY_PUBLISHED_MS);
    return { keys: published.map((k) => k.publicJwk) };
  }
}
