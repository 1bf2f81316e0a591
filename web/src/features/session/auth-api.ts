import { plazaUnreachable } from '../../connection';
import type { MessageKey } from '../../i18n/strings';
import { problemOf, type ServerProblem } from '../../ui/graphql-errors';

export interface SessionUser {
  id: string;
  email: string;
  roles: string[];
}

/**
 * A failure of sign-in or sign-out: the server's problem (its English text with code and field), or one
 * found here, named by `words` so the form says it in the reader's language.
 */
export class AuthError extends Error {
  constructor(
    readonly problem: ServerProblem,
    readonly words?: { key: MessageKey; values?: Record<string, string | number> },
  ) {
    super(problem.message);
    this.name = 'AuthError';
  }

  get field(): string | undefined {
    return this.problem.field;
  }
}

async function postJson(path: string, body?: unknown): Promise<Response> {
  try {
    return await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    plazaUnreachable();
    throw new AuthError({ message: `Could not reach the Plaza server (${detail}).` }, { key: 'session.unreachable', values: { detail } });
  }
}

/** The server's REST error shape, as GraphQL's: {"errors":[{"message","extensions":{"code","field"}}]}. */
async function errorFrom(response: Response, action: string): Promise<AuthError> {
  // A body that is not JSON (a proxy's error page) leaves the general sentence below.
  const body = (await response.json().catch(() => ({}))) as { errors?: { message?: string; extensions?: Record<string, unknown> }[] };
  const [first] = body.errors ?? [];
  if (first?.message) return new AuthError(problemOf(first.message, first.extensions));
  const status = response.status;
  return new AuthError({ message: `${action} failed: the server answered HTTP ${status}.` }, { key: 'session.httpFailed', values: { status: String(status) } });
}

/** Development identity provider; on success the server also sets the HTTP-only session cookie. */
export async function signInWithEmail(email: string): Promise<SessionUser> {
  const response = await postJson('/auth/dev/sign-in', { email });
  if (response.status === 404) throw new AuthError({ message: 'Development sign-in is turned off on this server.' }, { key: 'session.devSignInOff' });
  if (!response.ok) throw await errorFrom(response, 'Sign-in');
  const { user } = (await response.json()) as { user: SessionUser };
  return user;
}

export async function signOut(): Promise<void> {
  const response = await postJson('/auth/sign-out');
  if (!response.ok) throw await errorFrom(response, 'Sign-out');
}
