import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { SUBMIT_APP, submitApp, validAppInput } from './helpers/factories.js';

const CREATE = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token apiToken { id name scopes tokenPrefix expiresAt lastUsedAt revokedAt } } }';
const REVOKE = 'mutation($id: ID!) { revokeApiToken(id: $id) }';
const TOKENS = '{ myApiTokens(first: 100) { edges { node { id name scopes tokenPrefix lastUsedAt revokedAt } } } }';
/** The developer's tokens, newest first (fewer than a page of 100 here). */
const listTokens = async (client: GraphQLTestClient): Promise<any[]> =>
  (await client.ok<{ myApiTokens: { edges: { node: any }[] } }>(TOKENS)).myApiTokens.edges.map((edge) => edge.node);

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('integrations@studio.test');
});

async function createToken(scopes: string[], extra: Record<string, unknown> = {}) {
  return (await developer.ok<{ createApiToken: any }>(CREATE, { input: { name: 'CI reporter', scopes, ...extra } })).createApiToken;
}

describe('API tokens', () => {
  it('are shown once and stored only as a SHA-256 hash', async () => {
    const created = await createToken(['deliveries:read']);
    expect(created.token).toMatch(/^plz_at_[A-Za-z0-9_-]{43}$/);
    expect(created.apiToken).toMatchObject({ name: 'CI reporter', scopes: ['deliveries:read'], lastUsedAt: null, revokedAt: null });
    expect(created.token.startsWith(created.apiToken.tokenPrefix)).toBe(true);
    const [row] = await plaza.services.db.query('SELECT row_to_json(t)::text AS j, token_hash FROM api_tokens t WHERE id = $1', [created.id]);
    expect(row.j).not.toContain(created.token);
    expect(row.token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
    // Listing them later never shows the value.
    const myApiTokens = await listTokens(developer);
    expect(JSON.stringify(myApiTokens)).not.toContain(created.token);
    expect(myApiTokens.map((t) => t.id)).toContain(created.id);
  });

  it('expire after 90 days by default, or after the days asked for', async () => {
    const byDefault = await createToken(['apps:read']);
    const days = (Date.parse(byDefault.apiToken.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    const short = await createToken(['apps:read'], { expiresInDays: 7 });
    expect(Math.round((Date.parse(short.apiToken.expiresAt) - Date.now()) / 86_400_000)).toBe(7);
    expect((await developer.error(CREATE, { input: { name: 'x', scopes: ['apps:read'], expiresInDays: 0 } })).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'expiresInDays',
    });
  });

  it('refuse unknown scopes, an empty scope list and an empty name, naming the field', async () => {
    const before = (await listTokens(developer)).length;
    expect((await developer.error(CREATE, { input: { name: 'x', scopes: ['everything'] } })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'scopes' });
    expect((await developer.error(CREATE, { input: { name: 'x', scopes: [] } })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'scopes' });
    expect((await developer.error(CREATE, { input: { name: '', scopes: ['apps:read'] } })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
    expect((await listTokens(developer)).length).toBe(before);
  });

  it('act for their owner within their scopes only', async () => {
    const app = await submitApp(developer);
    const appsReader = developer.withToken((await createToken(['apps:read'])).token);
    const deliveriesReader = developer.withToken((await createToken(['deliveries:read'])).token);

    expect((await appsReader.ok<{ myApps: any[] }>('{ myApps { id } }')).myApps.map((a) => a.id)).toContain(app.id);
    expect((await appsReader.ok<{ me: any }>('{ me { id } }')).me.id).toBe(developer.userId);
    const refused = await deliveriesReader.error('{ myApps { id } }');
    expect(refused).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(refused.message).toContain('apps:read');
    // Without apps:read, a token sees a pending app as the public does: not at all.
    expect((await deliveriesReader.ok<{ app: any }>('query($id: ID!) { app(id: $id) { id } }', { id: app.id })).app).toBeNull();

    // No token can change anything or mint more tokens.
    expect((await appsReader.error(SUBMIT_APP, { input: validAppInput() })).extensions?.code).toBe('FORBIDDEN');
    expect((await appsReader.error(CREATE, { input: { name: 'more', scopes: ['apps:read'] } })).extensions?.code).toBe('FORBIDDEN');
    expect((await appsReader.error('mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }', { appId: app.id })).extensions?.code).toBe('FORBIDDEN');
  });

  it('record when they were last used', async () => {
    const created = await createToken(['apps:read']);
    await developer.withToken(created.token).ok('{ myApps { id } }');
    const listed = (await listTokens(developer)).find((t) => t.id === created.id);
    expect(Date.now() - Date.parse(listed.lastUsedAt)).toBeLessThan(10_000);
  });

  it('stop working when revoked (401) and only their owner can revoke them', async () => {
    const created = await createToken(['apps:read']);
    const other = await plaza.signIn('someone@else.test');
    expect((await other.error(REVOKE, { id: created.id })).extensions?.code).toBe('FORBIDDEN');
    expect((await developer.ok<{ revokeApiToken: boolean }>(REVOKE, { id: created.id })).revokeApiToken).toBe(true);
    const result = await developer.withToken(created.token).request('{ myApps { id } }');
    expect(result.status).toBe(401);
    expect(result.errors?.[0]).toMatchObject({ message: expect.stringContaining('revoked'), extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('stop working when expired (401)', async () => {
    const created = await createToken(['apps:read']);
    await plaza.services.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [created.id]);
    const result = await developer.withToken(created.token).request('{ myApps { id } }');
    expect(result.status).toBe(401);
    expect(result.errors?.[0]?.message).toContain('expired');
  });
});

describe('sign-in sessions', () => {
  it('end with sign-out and expire', async () => {
    const session = await plaza.signIn('short-lived@studio.test');
    const out = await fetch(`${plaza.url}/auth/sign-out`, { method: 'POST', headers: { authorization: `Bearer ${session.token}` } });
    expect(out.status).toBe(204);
    expect((await session.request('{ me { id } }')).status).toBe(401);

    const expiring = await plaza.signIn('short-lived@studio.test');
    await plaza.services.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [expiring.userId]);
    expect((await expiring.request('{ me { id } }')).errors?.[0]?.message).toContain('expired');
  });

  it('set an HTTP-only session cookie that authenticates GraphQL requests', async () => {
    const response = await fetch(`${plaza.url}/auth/dev/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'Cookie@Studio.test' }),
    });
    const body = await response.json();
    expect(body.user).toMatchObject({ email: 'cookie@studio.test', roles: ['DEVELOPER', 'USER'] });
    const setCookie = response.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^plaza_session=plz_s_[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const [cookie = ''] = setCookie.split(';');
    const me = await fetch(`${plaza.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ query: '{ me { id email } }' }),
    });
    expect((await me.json()).data.me).toEqual({ id: body.user.id, email: 'cookie@studio.test' });
  });

  it('derive a stable user id from the e-mail in the development provider', async () => {
    const a = await plaza.signIn('same@studio.test');
    const b = await plaza.signIn('SAME@studio.test');
    expect(a.userId).toBe(b.userId);
    expect(a.userId).not.toBe(developer.userId);
  });

  it('refuse a malformed e-mail at dev sign-in, and the route is 404 when dev sign-in is off', async () => {
    const bad = await fetch(`${plaza.url}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'not-an-email' }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT', field: 'email' } }] });
    const production = await startTestPlaza({ AUTH_DEV_SIGN_IN: 'false' });
    const off = await fetch(`${production.url}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@b.c' }) });
    expect(off.status).toBe(404);
  });
});
