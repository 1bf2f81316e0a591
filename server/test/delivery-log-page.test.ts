import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { DELIVERY, emitEvent } from './helpers/webhooks.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { databasePool } from '../src/platform/database.js';
import { buildPlazaSchema } from '../src/app/schema.js';
import { isObjectType } from 'graphql';

/** The Webhook Logs page reads deliveries without their bodies; a client that asks for `payload` still gets each one exactly. */
let plaza: TestPlaza;
let owner: GraphQLTestClient;
const deliveryIds: string[] = [];

beforeAll(async () => {
  // Nothing is sent (the receiver's address is never reached in an hour): the log is read as recorded.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h', RUN_WORKER: 'false' });
  owner = await plaza.signIn('log.page@studio.test');
  const app = await submitApp(owner, { webhookUrl: 'https://hooks.example.com/plaza' });
  for (const type of [WebhookEventType.APP_PURCHASED, WebhookEventType.APP_INSTALLED, WebhookEventType.APP_UNINSTALLED])
    deliveryIds.push((await emitEvent(plaza, app.id, { type })).id);
});

describe('webhookDeliveries, the log page', () => {
  it("gives each delivery's own signed body when the page asks for payload, and the page without it is the same page", async () => {
    const page = await owner.ok<{ webhookDeliveries: { edges: { node: { id: string; eventName: string; payload?: string } }[] } }>(
      'query { webhookDeliveries(first: 10) { edges { node { id eventName payload } } } }',
    );
    const listed = page.webhookDeliveries.edges.map((edge) => edge.node);
    expect(listed.map((d) => d.id)).toEqual([...deliveryIds].reverse());
    for (const delivery of listed) {
      const { webhookDelivery } = await owner.ok<{ webhookDelivery: { payload: string } }>(DELIVERY, { id: delivery.id });
      expect(delivery.payload).toBe(webhookDelivery.payload);
      expect(JSON.parse(delivery.payload!)).toMatchObject({ event: delivery.eventName });
    }

    const withoutBodies = await owner.ok<{ webhookDeliveries: { edges: { node: { id: string } }[] } }>('query { webhookDeliveries(first: 10) { edges { node { id } } } }');
    expect(withoutBodies.webhookDeliveries.edges.map((edge) => edge.node.id)).toEqual(listed.map((d) => d.id));
  });
});

const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token } }';
const PAGE_IDS = 'query { webhookDeliveries(first: 50) { edges { node { id appId } } } }';
type PageIds = { webhookDeliveries: { edges: { node: { id: string; appId: string } }[] } };

/**
 * What each statement of a request read, in order, the token's own read (which brings its owner's apps along) apart:
 * a token already used is normally kept by the process (identity's credential cache), but the cache is bypassed
 * whenever the process is not sure it hears every change of credentials (its LISTEN connection slow to answer on a
 * busy machine), and then the token is read again, once. Whether it is kept is credential-cache.test's; here, that
 * the page costs what it should and the token at most its one statement.
 */
function statementKinds(texts: string[]): string[] {
  const kinds = texts.map((text) => {
    if (/FROM api_tokens/.test(text)) return 'token';
    // Checked before the page: these statements name the page's deliveries too.
    if (/FROM webhook_attempts/.test(text)) return 'last attempts';
    if (/FROM webhook_events/.test(text)) return 'bodies';
    return /FROM webhook_deliveries/.test(text) ? 'page' : text;
  });
  return kinds[0] === 'token' ? kinds.slice(1) : kinds;
}

/** The texts of the statements the server sends while `work` runs: prepared ones through its pool, the others through TypeORM. */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const pool = databasePool(plaza.services.db);
  const query = pool.query;
  const db = plaza.services.db;
  const typeormQuery = db.query;
  const texts: string[] = [];
  pool.query = function (this: typeof pool, ...args: unknown[]) {
    const [config] = args as [string | { text: string }];
    texts.push(typeof config === 'string' ? config : config.text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  db.query = function (this: typeof db, text: string, ...rest: unknown[]) {
    texts.push(text);
    return (typeormQuery as (...a: unknown[]) => unknown).apply(this, [text, ...rest]);
  } as typeof db.query;
  try {
    await work();
  } finally {
    pool.query = query;
    db.query = typeormQuery;
  }
  return texts;
}

describe('webhookDeliveries with an API token', () => {
  it("costs at most two statements: the token's, which brings its owner's apps along (none once the token is kept), and the page's", async () => {
    const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'log reader', scopes: ['deliveries:read'] } });
    const reader = owner.withToken(createApiToken.token);
    // The token's first use records when it was used: not part of every request.
    await reader.ok(PAGE_IDS);
    let page: PageIds | undefined;
    const texts = await statementsDuring(async () => (page = await reader.ok<PageIds>(PAGE_IDS)));
    expect(page!.webhookDeliveries.edges.map((edge) => edge.node.id)).toEqual([...deliveryIds].reverse());
    // Only the request's own statements (nothing else in this process reads these tables meanwhile).
    const ofRequest = texts.filter((text) => /api_tokens|\bapps\b|webhook_deliveries/.test(text));
    expect(statementKinds(ofRequest)).toEqual(['page']);
  });

  it('costs the same statements however the request names the log: under an alias, over GET, or by a persisted query’s hash', async () => {
    const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'any-shape reader', scopes: ['deliveries:read'] } });
    const reader = owner.withToken(createApiToken.token);
    await reader.ok(PAGE_IDS);
    const ALIASED = 'query { recent: webhookDeliveries(first: 50) { edges { node { id appId } } } }';
    const headers = { authorization: `Bearer ${createApiToken.token}`, 'apollo-require-preflight': 'true' };
    const overGet = async () => (await fetch(`${plaza.url}/graphql?query=${encodeURIComponent(PAGE_IDS)}`, { headers })).json() as Promise<{ data: PageIds }>;
    // Automatic persisted queries (Apollo's protocol): the text is sent once, then only its hash.
    const hash = createHash('sha256').update(PAGE_IDS).digest('hex');
    const persisted = (query?: string) => ({ ...(query ? { query } : {}), extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    const post = async (body: unknown) =>
      (await fetch(`${plaza.url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<{
        data: PageIds;
      }>;
    await post(persisted(PAGE_IDS));
    const expected = [...deliveryIds].reverse();
    const reads: [string, () => Promise<string[]>][] = [
      ['aliased', async () => (await reader.ok<{ recent: PageIds['webhookDeliveries'] }>(ALIASED)).recent.edges.map((edge) => edge.node.id)],
      ['over GET', async () => (await overGet()).data.webhookDeliveries.edges.map((edge) => edge.node.id)],
      ['by its hash', async () => (await post(persisted())).data.webhookDeliveries.edges.map((edge) => edge.node.id)],
    ];
    for (const [how, read] of reads) {
      let ids: string[] = [];
      const texts = await statementsDuring(async () => (ids = await read()));
      expect(ids, how).toEqual(expected);
      const ofRequest = texts.filter((text) => /api_tokens|\bapps\b|webhook_deliveries/.test(text));
      expect(statementKinds(ofRequest), how).toEqual(['page']);
    }
  });

  it('reads the bodies a page asks for in one more statement, by their events', async () => {
    const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'body reader', scopes: ['deliveries:read'] } });
    const reader = owner.withToken(createApiToken.token);
    const PAGE_BODIES = 'query { webhookDeliveries(first: 50) { edges { node { id payload payloadKept } } } }';
    await reader.ok(PAGE_BODIES);
    let page: { webhookDeliveries: { edges: { node: { id: string; payload: string; payloadKept: boolean } }[] } } | undefined;
    const texts = await statementsDuring(async () => (page = await reader.ok(PAGE_BODIES)));
    expect(page!.webhookDeliveries.edges.map((edge) => edge.node.payloadKept)).toEqual(deliveryIds.map(() => true));
    const ofRequest = texts.filter((text) => /api_tokens|\bapps\b|webhook_deliveries|webhook_events/.test(text));
    expect(statementKinds(ofRequest)).toEqual(['page', 'bodies']);
  });

  it("reads every delivery's last attempt a page asks for in one more statement, not one per delivery (issue 27, finding 2)", async () => {
    const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'last attempt reader', scopes: ['deliveries:read'] } });
    const reader = owner.withToken(createApiToken.token);
    const PAGE_LAST = 'query { webhookDeliveries(first: 50) { edges { node { id lastAttempt { number statusCode error durationMs outcome } } } } }';
    await reader.ok(PAGE_LAST);
    let page: { webhookDeliveries: { edges: { node: { id: string; lastAttempt: unknown } }[] } } | undefined;
    const texts = await statementsDuring(async () => (page = await reader.ok(PAGE_LAST)));
    // Nothing has been sent here (the worker is off): none has an attempt yet.
    expect(page!.webhookDeliveries.edges.map((edge) => edge.node.lastAttempt)).toEqual(deliveryIds.map(() => null));
    const ofRequest = texts.filter((text) => /api_tokens|\bapps\b|webhook_deliveries|webhook_attempts/.test(text));
    expect(statementKinds(ofRequest)).toEqual(['page', 'last attempts']);
  });

  it('sees an app created since its last request, and is refused as soon as it is revoked: nothing is kept between requests', async () => {
    const { createApiToken } = await owner.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, { input: { name: 'log reader', scopes: ['deliveries:read'] } });
    const reader = owner.withToken(createApiToken.token);
    const before = await reader.ok<PageIds>(PAGE_IDS);
    const newApp = await submitApp(owner, { webhookUrl: 'https://hooks.example.com/plaza-second' });
    const delivery = await emitEvent(plaza, newApp.id);
    const after = await reader.ok<PageIds>(PAGE_IDS);
    expect(after.webhookDeliveries.edges.map((edge) => edge.node.id)).toEqual([delivery.id, ...before.webhookDeliveries.edges.map((edge) => edge.node.id)]);
    expect(after.webhookDeliveries.edges[0]?.node.appId).toBe(newApp.id);

    await owner.ok('mutation($id: ID!) { revokeApiToken(id: $id) }', { id: createApiToken.id });
    const refused = await reader.request(PAGE_IDS);
    expect(refused.status).toBe(401);
    expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("brings no apps along for a principal that outlives one request (a graphql-ws connection's) or a token that cannot read deliveries", async () => {
    const reader = await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'log reader', scopes: ['deliveries:read'] } });
    const appsOnly = await owner.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'apps reader', scopes: ['apps:read'] } });
    const { identity } = plaza.services;
    expect(await identity.authenticate(reader.createApiToken.token, { ownedApps: true })).toHaveProperty('ownedAppIds');
    expect(await identity.authenticate(reader.createApiToken.token)).not.toHaveProperty('ownedAppIds');
    expect(await identity.authenticate(appsOnly.createApiToken.token, { ownedApps: true })).not.toHaveProperty('ownedAppIds');
  });
});

describe('the log page in the schema', () => {
  it('reads the plain fields of a page of deliveries without a resolver call per field; derived fields keep theirs', async () => {
    const schema = await buildPlazaSchema();
    const fieldsOf = (name: string) => {
      const type = schema.getType(name);
      if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
      return type.getFields();
    };
    // No resolver: the compiled executor reads the property inline (a page of 20 made 260 resolver calls).
    for (const [type, fields] of [
      ['WebhookDeliveryConnection', ['edges', 'pageInfo']],
      ['WebhookDeliveryEdge', ['cursor', 'node']],
      ['PageInfo', ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']],
      ['WebhookDelivery', ['id', 'appId', 'event', 'eventName', 'purchaseId', 'status', 'attemptCount', 'nextAttemptAt', 'createdAt', 'updatedAt', 'heldReason']],
    ] as const)
      for (const field of fields) expect(fieldsOf(type)[field]?.resolve, `${type}.${field}`).toBeUndefined();
    // Timestamps leave the executor as text: a Date would be written by JSON.stringify's slow path (toJSON).
    const dateTime = schema.getType('DateTime');
    expect(dateTime && 'serialize' in dateTime ? dateTime.serialize(new Date(Date.UTC(2026, 10, 24, 1, 2, 3, 4))) : undefined).toBe('2026-11-24T01:02:03.004Z');
    for (const field of ['payload', 'attempts']) expect(fieldsOf('WebhookDelivery')[field]?.resolve, `WebhookDelivery.${field}`).toBeTypeOf('function');
  });
});
