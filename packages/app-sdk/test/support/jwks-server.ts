import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { type RunningServer, startServer } from './http-server.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

export interface JwksServer extends RunningServer {
  /** The keys served; change it to simulate rotation. */
  keys: SigningKey[];
  requests: number;
}

/** Serves the keys' public halves at /.well-known/jwks.json, like the platform; 404 elsewhere. */
export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  const state = { keys, requests: 0 };
  const server = await startServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    state.requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: state.keys.map((key) => key.publicJwk) }));
  });
  return Object.assign(state, server);
}

export interface TokenClaims {
  iss: string;
  aud: string;
  sub?: string;
  jti?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
}

/** A token shaped like the platform's: ES256, kid in the header, exp = iat + 5 minutes. */
export async function platformToken(key: SigningKey, { iss, aud, sub = 'usr_42', jti = 'jti_1', expiresIn = 300 }: TokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: key.kid }).setIssuer(iss).setAudience(aud).setSubject(sub).setJti(jti);
  return jwt
    .setIssuedAt(now + Math.min(0, expiresIn - 300))
    .setExpirationTime(now + expiresIn)
    .sign(key.privateKey);
}

export const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
