import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import type { Config } from '../../config.js';

export const SESSION_COOKIE = 'plaza_session';

/** HTTP-only so page scripts never hold it; SameSite=Lax so other sites cannot post with it. */
export function setSessionCookie(res: Response, config: Config, token: string, expiresAt: Date): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: config.platformOrigin.startsWith('https:'), path: '/', expires: expiresAt }),
  );
}

export function clearSessionCookie(res: Response, config: Config): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: config.platformOrigin.startsWith('https:'), path: '/', expires: new Date(0) }));
}

/** The credential of a request: the bearer token if one is given, else the session cookie. */
export function credentialOf(headers: { authorization?: string | string[]; cookie?: string | string[] }): string | undefined {
  const authorization = Array.isArray(headers.authorization) ? headers.authorization[0] : headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    return match ? match[1] : authorization.trim();
  }
  const cookieHeader = Array.isArray(headers.cookie) ? headers.cookie.join('; ') : headers.cookie;
  return cookieHeader ? parse(cookieHeader)[SESSION_COOKIE] : undefined;
}

export const requestCredential = (req: Request) => credentialOf(req.headers);
