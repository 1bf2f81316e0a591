import { createClient, type Client } from 'graphql-ws';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';

let plaza: TestPlaza;
let appId: string;

beforeAll(async () => {
  // Sessions last 3 s here, so the test can watch one expire; each test signs in afresh.
  plaza = await startTestPlaza({ SESSION_TTL: '3s' });
  appId = (await submitApp(await developer(), { webhookUrl: 'https://hooks.example/plaza' })).id;
});

const developer = (): Promise<GraphQLTestClient> => plaza.signIn('sockets@studio.test');

const wsUrl = () => `${plaza.url.replace(/^http/, 'ws')}/graphql`;
const DELIVERIES = 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status } }';

/** A graphql-ws client that reports how its socket closed. */
function client(token: string, options: { origin?: string } = {}): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  let closed!: (event: { code: number; reason: string }) => void;
  const closedPromise = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
  const origin = options.origin;
  class OriginWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, origin ? { origin } : {});
    }
  }
  const created = createClient({
    url: wsUrl(),
    webSocketImpl: OriginWebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    // The tests read how the socket closed from `closed`; graphql-ws would also print it to stderr.
    onNonLazyError: () => undefined,
    on: { closed: (event) => closed({ code: (event as { code: number }).code, reason: String((event as { reason: unknown }).reason) }) },
  });
  return { client: created, closed: closedPromise };
}

/** Subscribes and resolves once the server holds the subscription, or with the first error. */
async function subscribed(live: Client, query: string, variables: Record<string, unknown>): Promise<{ errors?: unknown }> {
  const before = plaza.services.pubSub.subscriptionCount;
  return new Promise((resolve) => {
    live.subscribe({ query, variables }, { next: () => undefined, error: (errors) => resolve({ errors }), complete: () => undefined });
    const held = setInterval(() => {
      if (plaza.services.pubSub.subscriptionCount > before) resolve({});
    }, 10);
    // Cannot reject: it only sets a timer.
    void Promise.resolve().then(() => setTimeout(() => clearInterval(held), 5_000));
  });
}

describe('graphql-ws connections', () => {
  it('from a page of another site are refused at the upgrade; the platform origin is let in', async () => {
    const { token } = await developer();
    const foreign = client(token!, { origin: 'https://evil.example' });
    expect((await foreign.closed).code).not.toBe(1000);
    await foreign.client.dispose();

    const own = client(token!, { origin: plaza.services.config.platformOrigin });
    expect(await subscribed(own.client, DELIVERIES, { appId })).toEqual({});
    await own.client.dispose();
  });

  it('that never say who they are are closed after 3 seconds (4408)', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    const openedAt = Date.now();
    const code = await new Promise<number>((resolve) => socket.on('close', (closeCode) => resolve(closeCode)));
    expect(code).toBe(4408);
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(2_900);
  });

  it('end when their API token is revoked (4403), on the spot', async () => {
    const owner = await developer();
    const { createApiToken } = await owner.ok<{ createApiToken: { id: string; token: string } }>(
      'mutation { createApiToken(input: { name: "live logs", scopes: ["deliveries:read"] }) { id token } }',
    );
    const live = client(createApiToken.token);
    const before = plaza.services.pubSub.subscriptionCount;
    expect(await subscribed(live.client, DELIVERIES, { appId })).toEqual({});
    expect(plaza.services.pubSub.subscriptionCount).toBeGreaterThan(before);

    await owner.ok('mutation($id: ID!) { revokeApiToken(id: $id) }', { id: createApiToken.id });
    const closed = await live.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/revoked/);
    await expect.poll(() => plaza.services.pubSub.subscriptionCount).toBe(before);
  });

  it('end when their person signs out, and when the sign-in expires', async () => {
    const leaving = await plaza.signIn('leaving@studio.test');
    const signedOut = client(leaving.token!);
    expect(await subscribed(signedOut.client, 'subscription { notificationAdded { id } }', {})).toEqual({});
    const response = await fetch(`${plaza.url}/auth/sign-out`, { method: 'POST', headers: { authorization: `Bearer ${leaving.token}` } });
    expect(response.status).toBeLessThan(300);
    expect((await signedOut.closed).code).toBe(4403);

    const staying = await plaza.signIn('staying@studio.test');
    const expiring = client(staying.token!);
    expect(await subscribed(expiring.client, 'subscription { notificationAdded { id } }', {})).toEqual({});
    const closed = await expiring.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/expired/);
  });

  it('are held to the same document limits as HTTP', async () => {
    const live = client((await developer()).token!);
    const aliases = `query { ${Array.from({ length: 31 }, (_, i) => `a${i}: me { id }`).join(' ')} }`;
    const refused = (await subscribed(live.client, aliases, {})) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'TOO_MANY_ALIASES' });

    const page = (alias: string) =>
      `${alias}: webhookDeliveries(first: 100) { edges { node { id appId event eventName purchaseId payload status attemptCount attempts { number trigger startedAt durationMs statusCode error responseBodyExcerpt } } } }`;
    const costly = (await subscribed(live.client, `query { ${Array.from({ length: 8 }, (_, i) => page(`p${i}`)).join(' ')} }`, {})) as {
      errors?: { extensions?: Record<string, unknown> }[];
    };
    expect(costly.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
    await live.client.dispose();
  });

  it('come back after Plaza fails to set them up for a fault of its own: told to try again (1013), not closed for good (4500)', async () => {
    const owner = await developer();
    const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>('mutation { createApiToken(input: { name: "live", scopes: ["deliveries:read"] }) { token } }');
    // A fault that is neither a refused credential nor the database away: Plaza's role may no longer read its API tokens.
    await plaza.services.db.query('REVOKE SELECT ON api_tokens FROM CURRENT_USER');
    const closes: { code: number; reason: string }[] = [];
    let connected = 0;
    // As the web app's live link retries (web/src/live-link.ts): for as long as anyone listens.
    const live = createClient({
      url: wsUrl(),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${createApiToken.token}` },
      retryAttempts: Infinity,
      shouldRetry: () => true,
      retryWait: () => new Promise((resolve) => setTimeout(resolve, 100)),
      on: {
        connected: () => (connected += 1),
        closed: (event) => closes.push({ code: (event as { code: number }).code, reason: String((event as { reason: unknown }).reason) }),
      },
    });
    try {
      // How the first subscription ended, if it did.
      let firstEnded: string | undefined;
      live.subscribe(
        { query: DELIVERIES, variables: { appId } },
        { next: () => undefined, error: (error) => (firstEnded = `error: ${JSON.stringify(error)}`), complete: () => (firstEnded = 'complete') },
      );
      await expect.poll(() => closes.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(closes[0]).toEqual({ code: 1013, reason: 'Plaza could not set up live updates; try again shortly' });
      expect(connected).toBe(0);

      const withoutIt = plaza.services.pubSub.subscriptionCount;
      await plaza.services.db.query('GRANT SELECT ON api_tokens TO CURRENT_USER');
      await expect.poll(() => connected, { timeout: 10_000 }).toBe(1);
      // The first subscription was carried over to the connection that succeeded: the server holds it, and it never ended.
      await expect.poll(() => plaza.services.pubSub.subscriptionCount, { timeout: 10_000 }).toBeGreaterThan(withoutIt);
      expect(firstEnded).toBeUndefined();
      const before = plaza.services.pubSub.subscriptionCount;
      const again = await subscribed(live, DELIVERIES, { appId });
      expect(again).toEqual({});
      expect(plaza.services.pubSub.subscriptionCount).toBeGreaterThan(before);
      expect(firstEnded).toBeUndefined();
    } finally {
      await plaza.services.db.query('GRANT SELECT ON api_tokens TO CURRENT_USER');
      await live.dispose();
    }
  });
});
