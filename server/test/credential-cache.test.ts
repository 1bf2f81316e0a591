import { connect, createServer, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, TEST_ENCRYPTION_KEY, type TestPlaza } from './helpers/plaza.js';
import { GraphQLTestClient, type GraphQLErrorBody } from './helpers/graphql-client.js';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { startPlazaProcess, type PlazaProcess } from './helpers/process.js';
import { PostgresPubSub } from '../src/platform/pubsub.js';
import { CredentialCache } from '../src/modules/identity/credential-cache.js';

// Verified sessions and API tokens are kept in each API process for seconds, so a signed-in request spends no
// round trip on who is asking. Every change of what one proves must still hold on its very next request, on
// the process that made the change and on every other one: here an in-process Plaza and the built server as a
// process of its own, on one database, each asked once before the change so that both hold it verified.

const ME = '{ me { id roles } }';
const MY_APPS = '{ myApps { id } }';
const QUEUE = '{ reviewQueue(first: 1) { edges { node { id } } } }';
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token } }';
const REVOKE_TOKEN = 'mutation($id: ID!) { revokeApiToken(id: $id) }';
const GRANT = 'mutation($userId: ID!, $role: String!) { grantRole(userId: $userId, role: $role) { id roles } }';
const REVOKE_ROLE = 'mutation($userId: ID!, $role: String!) { revokeRole(userId: $userId, role: $role) { id roles } }';

let plaza: TestPlaza;
let other: PlazaProcess;
let admin: GraphQLTestClient;

const reasonOf = (error: GraphQLErrorBody) => (error.extensions as { reason?: string } | undefined)?.reason;

/** The same credential's client on the in-process Plaza and on the other process. */
const onBoth = (client: GraphQLTestClient) => [client, new GraphQLTestClient(other.url, client.token, client.user)] as const;

beforeAll(async () => {
  plaza = await startTestPlaza();
  other = await startPlazaProcess({
    PORT: String(await findFreePort()),
    DATABASE_URL: plaza.databaseUrl,
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
    PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
    WEB_DIST_DIR: '/nonexistent',
    RUN_WORKER: 'false',
  });
  admin = await plaza.signIn(ADMIN_EMAIL);
}, 90_000);

describe('a verified credential kept in memory', () => {
  it('spares the database: the credential is kept after its first request', async () => {
    const developer = await plaza.signIn('kept@studio.test');
    await developer.ok(ME);
    const { createApiToken } = await developer.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'kept', scopes: ['apps:read'] } });
    await developer.withToken(createApiToken.token).ok(MY_APPS);
    // The session and the token, beside those of other tests.
    expect(plaza.services.identity.verified.size).toBeGreaterThanOrEqual(2);
  });

  it('refuses a revoked API token on its very next request, on both processes', async () => {
    const developer = await plaza.signIn('revoked-token@studio.test');
    for (let round = 0; round < 3; round++) {
      const { createApiToken } = await developer.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, { input: { name: `ci ${round}`, scopes: ['apps:read'] } });
      const [here, there] = onBoth(developer.withToken(createApiToken.token));
      await here.ok(MY_APPS);
      await there.ok(MY_APPS);
      // Revoked through one process and the other in turn.
      await (round % 2 === 0 ? developer : onBoth(developer)[1]).ok(REVOKE_TOKEN, { id: createApiToken.id });
      for (const client of round % 2 === 0 ? [there, here] : [here, there]) {
        const refused = await client.request(MY_APPS);
        expect(refused.status).toBe(401);
        expect(refused.errors?.[0]?.message).toContain('revoked');
      }
    }
  });

  it('refuses a signed-out session on its very next request, on both processes', async () => {
    for (let round = 0; round < 3; round++) {
      const [here, there] = onBoth(await plaza.signIn(`signed-out-${round}@studio.test`));
      await here.ok(ME);
      await there.ok(ME);
      const signOutAt = round % 2 === 0 ? plaza.url : other.url;
      expect((await fetch(`${signOutAt}/auth/sign-out`, { method: 'POST', headers: { authorization: `Bearer ${here.token}` } })).status).toBe(204);
      for (const client of round % 2 === 0 ? [there, here] : [here, there]) {
        const refused = await client.request(ME);
        expect(refused.status).toBe(401);
        expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SIGNED_OUT' });
      }
    }
  });

  it('refuses an API token once it expires, though it was verified before', async () => {
    const developer = await plaza.signIn('expiring-token@studio.test');
    const { createApiToken } = await developer.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, { input: { name: 'short', scopes: ['apps:read'] } });
    // Its lifetime shortened before its first use, so what both processes keep is the short one.
    await plaza.services.db.query("UPDATE api_tokens SET expires_at = now() + interval '2 seconds' WHERE id = $1", [createApiToken.id]);
    const clients = onBoth(developer.withToken(createApiToken.token));
    for (const client of clients) await client.ok(MY_APPS);
    await expect.poll(async () => (await clients[1].request(MY_APPS)).status, { timeout: 10_000, interval: 200 }).toBe(401);
    for (const client of clients) expect((await client.error(MY_APPS)).extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'API_TOKEN_EXPIRED' });
  });

  it('refuses a session and a token changed in the database by hand, on both processes', async () => {
    const developer = await plaza.signIn('changed-by-hand@studio.test');
    const { createApiToken } = await developer.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, { input: { name: 'by hand', scopes: ['apps:read'] } });
    const sessions = onBoth(developer);
    const tokens = onBoth(developer.withToken(createApiToken.token));
    for (const client of [...sessions, ...tokens]) await client.ok(MY_APPS);
    // No Plaza code runs: the database's own notice is all either process hears.
    await plaza.services.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [createApiToken.id]);
    await plaza.services.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [developer.userId]);
    for (const client of tokens) await expect.poll(async () => reasonOf(await client.error(MY_APPS)), { timeout: 2000, interval: 5 }).toBe('API_TOKEN_EXPIRED');
    for (const client of sessions) await expect.poll(async () => reasonOf(await client.error(MY_APPS)), { timeout: 2000, interval: 5 }).toBe('SESSION_EXPIRED');
  });

  it('acts with a granted role, and stops with a revoked one, on the very next request on both processes', async () => {
    const person = await plaza.signIn('promoted@studio.test');
    const clients = onBoth(person);
    for (const client of clients) expect((await client.error(QUEUE)).extensions?.code).toBe('FORBIDDEN');

    await admin.ok(GRANT, { userId: person.userId, role: 'REVIEWER' });
    for (const client of [clients[1], clients[0]]) await client.ok(QUEUE);

    // Revoked through the other process: this one, too, must not act with it once the answer came.
    await onBoth(admin)[1].ok(REVOKE_ROLE, { userId: person.userId, role: 'REVIEWER' });
    for (const client of clients) {
      expect((await client.error(QUEUE)).extensions?.code).toBe('FORBIDDEN');
      expect((await client.ok<{ me: { roles: string[] } }>(ME)).me.roles).not.toContain('REVIEWER');
    }
  });
});

describe('a listen connection that stops answering without closing', () => {
  // A failover behind a virtual IP, or a NAT that drops the flow: the connection looks open while nothing
  // arrives on it, and a change committed meanwhile is never heard. Here a proxy in front of PostgreSQL that stops
  // passing bytes either way, keeping its sockets open, as such a peer does.
  it('stops serving kept credentials within seconds, and keeps them again once it answers', async () => {
    const target = new URL(plaza.databaseUrl);
    let frozen = false;
    const pairs: [Socket, Socket][] = [];
    const proxy = createServer((inbound) => {
      const outbound = connect(Number(target.port), target.hostname);
      pairs.push([inbound, outbound]);
      // Not pipe(): a piped stream may resume by itself when its destination drains.
      inbound.on('data', (chunk) => outbound.write(chunk));
      outbound.on('data', (chunk) => inbound.write(chunk));
      if (frozen) for (const socket of [inbound, outbound]) socket.pause();
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = new URL(plaza.databaseUrl);
    // Through the proxy by TCP, not the Unix socket the test database's address names.
    url.searchParams.delete('host');
    url.hostname = '127.0.0.1';
    url.port = String((proxy.address() as { port: number }).port);
    const pubSub = await PostgresPubSub.connect(url.toString());
    // Kept far longer than the test lasts, so only the connection's silence can make it forget.
    const cache = new CredentialCache<{ userId: string }>(pubSub, { ttlMs: 600_000 });
    try {
      cache.put('kept', { userId: 'someone' }, cache.generation);
      expect(cache.get('kept')).toEqual({ userId: 'someone' });
      // Paused, each socket's bytes wait in the kernel's buffers, to arrive in order once it resumes.
      frozen = true;
      for (const pair of pairs) for (const socket of pair) socket.pause();
      const frozenAt = performance.now();
      await expect.poll(() => cache.get('kept'), { timeout: 5_000, interval: 50 }).toBeUndefined();
      expect(performance.now() - frozenAt).toBeLessThan(5_000);
      // Nothing is kept while it is silent.
      cache.put('meanwhile', { userId: 'someone' }, cache.generation);
      expect(cache.get('meanwhile')).toBeUndefined();

      // What was held back arrives in order once it answers again: trusted again, without a reconnect.
      frozen = false;
      for (const pair of pairs) for (const socket of pair) socket.resume();
      await expect
        .poll(
          () => {
            cache.put('again', { userId: 'someone' }, cache.generation);
            return cache.get('again');
          },
          { timeout: 10_000, interval: 100 },
        )
        .toEqual({ userId: 'someone' });
    } finally {
      cache.close();
      await pubSub.close();
      for (const [inbound, outbound] of pairs) {
        inbound.destroy();
        outbound.destroy();
      }
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 30_000);
});
