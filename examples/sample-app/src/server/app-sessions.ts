import { randomBytes } from 'node:crypto';

const SESSION_LIFETIME_MS = 60 * 60 * 1000;

/**
 * The app's own sessions, started once Plaza's 5-minute session token has been verified. The page
 * holds the id in memory and sends it as a bearer token: a cookie would be a third-party cookie
 * inside Plaza's iframe, which browsers increasingly refuse.
 */
export class AppSessions {
  readonly #sessions = new Map<string, { userId: string; expiresAt: number }>();

  start(userId: string): string {
    this.#forgetExpired();
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, { userId, expiresAt: Date.now() + SESSION_LIFETIME_MS });
    return id;
  }

  /** The user of a live session, or undefined. */
  userOf(id: string | undefined): string | undefined {
    if (!id) return undefined;
    const session = this.#sessions.get(id);
    if (!session || session.expiresAt <= Date.now()) return undefined;
    return session.userId;
  }

  #forgetExpired(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) if (session.expiresAt <= now) this.#sessions.delete(id);
  }
}

export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
}
