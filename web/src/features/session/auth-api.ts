export interface SessionUser {
  id: string;
  email: string;
  roles: string[];
}

/** A failure whose message is written for the person at the keyboard, so it can be shown as is. */
export class AuthError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AuthError';
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
    throw new AuthError(`Could not reach the Plaza server (${err instanceof Error ? err.message : String(err)}).`);
  }
}

/** The server's REST error shape, as GraphQL's: {"errors":[{"message","extensions":{"code","field"}}]}. */
async function errorFrom(response: Response, action: string): Promise<AuthError> {
  const body = (await response.json().catch(() => ({}))) as { errors?: { message?: string; extensions?: { field?: string } }[] };
  const [first] = body.errors ?? [];
  return new AuthError(first?.message ?? `${action} failed: the server answered HTTP ${response.status}.`, first?.extensions?.field);
}

/** Development identity provider; on success the server also sets the HTTP-only session cookie. */
export async function signInWithEmail(email: string): Promise<SessionUser> {
  const response = await postJson('/auth/dev/sign-in', { email });
  if (response.status === 404) throw new AuthError('Development sign-in is turned off on this server.');
  if (!response.ok) throw await errorFrom(response, 'Sign-in');
  const { user } = (await response.json()) as { user: SessionUser };
  return user;
}

export async function signOut(): Promise<void> {
  const response = await postJson('/auth/sign-out');
  if (!response.ok) throw await errorFrom(response, 'Sign-out');
}
