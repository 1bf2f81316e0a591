import type { Client } from 'graphql-ws';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildSchema } from 'graphql';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../src/platform/subscription-limits.js';
import { MAX_CACHED_QUERY_CHARS, sharedSubscriptionExecution } from '../src/platform/subscription-execution.js';
import { GRAPHQL_LIMITS } from '../src/platform/graphql-limits.js';

const DELIVERIES = 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status } }';
const WAIT = { timeout: 20_000, interval: 20 };

let plaza: TestPlaza;
/** WEBSOCKETS_PER_ACCOUNT's default. */
const MAX_SOCKETS_PER_ACCOUNT = 20;
const sockets: Client[] = [];

beforeAll(async () => {
  plaza = await startTestPlaza();
});

afterEach(async () => {
  // dispose() is typed void | Promise<void>: the async arrow makes each a promise to wait for.
  await Promise.all(sockets.splice(0).map(async (socket) => socket.dispose()));
  await expect.poll(() => plaza.services.pubSub.subscriptionCount, WAIT).toBe(0);
});

const socketOf = (client: GraphQLTestClient): Client => {
  const socket = client.websocket();
  sockets.push(socket);
  return socket;
};

interface Outcome {
  /** Resolves with the subscription's errors if the server refuses it; never resolves while it is live. */
  refused: Promise<{ message: string; extensions?: Record<string, unknown> }[]>;
  stop: () => void;
}

function subscription(socket: Client, variables: Record<string, unknown> = {}): Outcome {
  let refuse!: (errors: { message: string; extensions?: Record<string, unknown> }[]) => void;
  const refused = new Promise<{ message: string; extensions?: Record<string, unknown> }[]>((resolve) => (refuse = resolve));
  const stop = socket.subscribe({ query: DELIVERIES, variables }, { next: () => undefined, error: (errors) => refuse(errors as never), complete: () => undefined });
  return { refused, stop };
}

/** The errors of a subscription the server refuses, or 'live' if this process starts holding it instead. */
async function refusal(outcome: Outcome, liveBefore: number) {
  let held: NodeJS.Timeout | undefined;
  const live = new Promise<'live'>((resolve) => {
    held = setInterval(() => plaza.services.pubSub.subscriptionCount > liveBefore && resolve('live'), 20);
  });
  try {
    return await Promise.race([outcome.refused, live]);
  } finally {
    clearInterval(held);
  }
}

async function apiToken(owner: GraphQLTestClient, name: string): Promise<GraphQLTestClient> {
  const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>(
    'mutation($name: String!) { createApiToken(input: { name: $name, scopes: ["deliveries:read"] }) { token } }',
    { name },
  );
  return owner.withToken(createApiToken.token);
}

describe('live subscriptions are bounded', () => {
  it(`refuses the ${MAX_SUBSCRIPTIONS_PER_SOCKET + 1}st subscription on one socket with RATE_LIMITED, and takes one again once one ends`, async () => {
    expect(MAX_SUBSCRIPTIONS_PER_SOCKET).toBe(100);
    const developer = await plaza.signIn('hundred@studio.test');
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example/plaza' });
    const socket = socketOf(developer);
    const held = Array.from({ length: MAX_SUBSCRIPTIONS_PER_SOCKET }, (_, i) => subscription(socket, i % 2 ? { appId: app.id } : {}));
    await plaza.waitForSubscriptions(MAX_SUBSCRIPTIONS_PER_SOCKET);

    const refused = await refusal(subscription(socket, { appId: app.id }), MAX_SUBSCRIPTIONS_PER_SOCKET);
    const [error] = refused === 'live' ? [] : refused;
    expect(refused).not.toBe('live');
    expect(error?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(error?.message).toMatch(/100 live subscriptions/);
    expect(plaza.services.pubSub.subscriptionCount).toBe(MAX_SUBSCRIPTIONS_PER_SOCKET);

    held[0]!.stop();
    await expect.poll(() => plaza.services.pubSub.subscriptionCount, WAIT).toBe(MAX_SUBSCRIPTIONS_PER_SOCKET - 1);
    subscription(socket);
    await plaza.waitForSubscriptions(MAX_SUBSCRIPTIONS_PER_SOCKET);
  });

  it(`refuses a subscription from an account's ${MAX_SOCKETS_PER_ACCOUNT + 1}st socket, whatever its credentials, and not another account's`, async () => {
    expect(plaza.services.config.websocketsPerAccount).toBe(MAX_SOCKETS_PER_ACCOUNT);
    const developer = await plaza.signIn('twenty@studio.test');
    // Two API tokens and a session of one account: the sockets of all three count together.
    const credentials = [developer, await apiToken(developer, 'one'), await apiToken(developer, 'two')];
    const open = Array.from({ length: MAX_SOCKETS_PER_ACCOUNT }, (_, i) => socketOf(credentials[i % credentials.length]!));
    for (const socket of open) subscription(socket);
    await plaza.waitForSubscriptions(MAX_SOCKETS_PER_ACCOUNT);

    const extra = socketOf(await apiToken(developer, 'three'));
    const refused = await refusal(subscription(extra), MAX_SOCKETS_PER_ACCOUNT);
    const [error] = refused === 'live' ? [] : refused;
    expect(refused).not.toBe('live');
    expect(error?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(error?.message).toMatch(/20 live connections/);

    // Another account is not held to this one's count.
    const other = socketOf(await plaza.signIn('other@studio.test'));
    subscription(other);
    await plaza.waitForSubscriptions(MAX_SOCKETS_PER_ACCOUNT + 1);

    // A socket that closes gives its place back: the refused socket may now subscribe.
    await open[0]!.dispose();
    await expect.poll(() => plaza.services.pubSub.subscriptionCount, WAIT).toBe(MAX_SOCKETS_PER_ACCOUNT);
    subscription(extra);
    await plaza.waitForSubscriptions(MAX_SOCKETS_PER_ACCOUNT + 1);
  });

  it('lets go of every listener and every count of closed sockets', async () => {
    const developer = await plaza.signIn('leaving@studio.test');
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example/plaza' });
    const token = await apiToken(developer, 'leaving');
    const open = Array.from({ length: 10 }, (_, i) => socketOf(i % 2 ? developer : token));
    for (const socket of open) for (let i = 0; i < 50; i++) subscription(socket, i % 2 ? { appId: app.id } : {});
    await plaza.waitForSubscriptions(500);
    expect(plaza.services.subscriptionLimits.accounts).toBe(1);

    // dispose() is typed void | Promise<void>: the async arrow makes each a promise to wait for.
    await Promise.all(sockets.splice(0).map(async (socket) => socket.dispose()));
    await expect.poll(() => plaza.services.pubSub.subscriptionCount, WAIT).toBe(0);
    // The sockets' own revocation listeners too, and the account's count of sockets.
    await expect.poll(() => plaza.services.pubSub.listenerCount, WAIT).toBe(0);
    await expect.poll(() => plaza.services.subscriptionLimits.accounts, WAIT).toBe(0);
  });

  it('lets go of sockets that close while their credential is being read', async () => {
    const developer = await plaza.signIn('hasty@studio.test');
    const url = `${plaza.url.replace(/^http/, 'ws')}/graphql`;
    const closed = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const socket = new WebSocket(url, 'graphql-transport-ws');
        await new Promise((resolve) => socket.once('open', resolve));
        socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${developer.token}` } }));
        socket.terminate();
        return new Promise((resolve) => socket.once('close', resolve));
      }),
    );
    expect(closed).toHaveLength(20);
    // A socket that is authenticated after it closed would keep its revocation listeners (and its expiry timer) for good.
    const settled = await plaza.signIn('hasty-after@studio.test');
    const after = socketOf(settled);
    subscription(after);
    await plaza.waitForSubscriptions(1);
    await after.dispose();
    await expect.poll(() => plaza.services.pubSub.listenerCount, WAIT).toBe(0);
  });
});

describe('the subscription document cache', () => {
  it('holds a bounded amount of query text, however many distinct documents arrive', () => {
    const schema = buildSchema('type Query { a: Int } type Subscription { tick: Int }');
    const execution = sharedSubscriptionExecution(schema, () => '', { parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens }, validationRules: [] });
    // Each near the token limit: as parsed (nodes, locations, tokens), about 600 kB of heap apiece.
    for (let i = 0; i < 600; i++) execution.parse(`subscription t${i} { tick }`);
    for (let i = 0; i < 120; i++) execution.parse(`subscription s${i} { ${'tick '.repeat(GRAPHQL_LIMITS.maxTokens - 10)}}`);
    // 100,000 characters: at most about 17 MB parsed, where 500 such documents held 306 MB for good.
    expect(MAX_CACHED_QUERY_CHARS).toBe(100_000);
    expect(execution.cachedQueryChars).toBeLessThanOrEqual(100_000);
    // The usual short documents are still parsed once.
    const usual = 'subscription { tick }';
    expect(execution.parse(usual)).toBe(execution.parse(usual));
  });
});
