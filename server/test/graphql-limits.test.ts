import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { GRAPHQL_LIMITS } from '../src/platform/graphql-limits.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('limits@studio.test');
});

/** `{ __schema { types { fields { type { fields { type … } } } } } }`: introspection is the schema's only recursion. */
function nestedIntrospection(levels: number): string {
  let selection = 'name';
  for (let i = 0; i < levels; i++) selection = i % 2 === 0 ? `type { ${selection} }` : `fields { ${selection} }`;
  return `{ __schema { types { fields { ${selection} } } } }`;
}

const ALL_DELIVERY_FIELDS =
  'id appId event eventName purchaseId payload status attemptCount nextAttemptAt createdAt updatedAt attempts { number trigger startedAt durationMs statusCode error responseBodyExcerpt }';
const deliveryPage = (alias: string, first: string) =>
  `${alias}: webhookDeliveries(first: ${first}) { edges { cursor node { ${ALL_DELIVERY_FIELDS} } } pageInfo { hasNextPage endCursor } }`;

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${plaza.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${developer.token}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] },
  };
}

describe('GraphQL documents', () => {
  it('pass when they are what the web app and GraphiQL send: introspection, a full page of deliveries', async () => {
    const introspection = await developer.request(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(introspection.errors).toBeUndefined();
    const page = await developer.request(`{ ${deliveryPage('deliveries', '100')} }`);
    expect(page.errors).toBeUndefined();
  });

  it('are refused, before running, when nested deeper than the limit', async () => {
    const deep = await post({ query: nestedIntrospection(GRAPHQL_LIMITS.maxDepth) });
    expect(deep.status).toBe(400);
    expect(deep.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_DEEP' });
    expect(deep.body.errors?.[0]?.message).toMatch(/levels deep; at most 15/);
  });

  it('are refused with too many aliases', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { id }`).join(' ')} }`;
    expect((await developer.request(aliases(GRAPHQL_LIMITS.maxAliases))).errors).toBeUndefined();
    const tooMany = await post({ query: aliases(GRAPHQL_LIMITS.maxAliases + 1) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'TOO_MANY_ALIASES' });
  });

  it('are refused with too many tokens, while parsing', async () => {
    const huge = `{ me { ${'id '.repeat(GRAPHQL_LIMITS.maxTokens)} } }`;
    const refused = await post({ query: huge });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors?.[0]?.message).toMatch(/tokens/);
  });

  it('are refused when their estimated cost is over the limit, pages counted with the `first` they ask for', async () => {
    // Five full pages of deliveries with their attempts: each fine alone, too much together.
    const expensive = `query($n: Int) { ${Array.from({ length: 5 }, (_, i) => deliveryPage(`p${i}`, '$n')).join(' ')} }`;
    const refused = await post({ query: expensive, variables: { n: 100 } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
    expect(refused.body.errors?.[0]?.message).toMatch(/would cost \d+; at most 10000/);
    // The same document with small pages is cheap enough.
    const cheap = await post({ query: expensive, variables: { n: 5 } });
    expect(cheap.body.errors).toBeUndefined();
  });

  it('cannot be batched, and bodies over 1 MB are answered 413', async () => {
    const batch = await post([{ query: '{ me { id } }' }, { query: '{ me { id } }' }]);
    expect(batch.status).toBe(400);
    expect(batch.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

    const tooLarge = await post({ query: '{ me { id } }', variables: { padding: 'x'.repeat(1_100_000) } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('from a browser form (no JSON content type, no preflight header) are refused as CSRF', async () => {
    const response = await fetch(`${plaza.url}/graphql?query=${encodeURIComponent('{ me { id } }')}`, { headers: { cookie: `plaza_session=${developer.token}` } });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/CSRF/i);
  });

  it('with a NUL character in any string input are refused naming the field, whether in variables or written inline', async () => {
    const inVariables = await developer.error('mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id } }', {
      input: { name: 'ci\u0000token', scopes: ['apps:read'] },
    });
    expect(inVariables).toMatchObject({ message: 'name must not contain NUL characters', extensions: { code: 'BAD_USER_INPUT', field: 'name' } });
    const inline = await developer.error('{ storeApps(search: "quiz\\u0000") { edges { cursor } } }');
    expect(inline.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'search' });
    const { myApiTokens } = await developer.ok<{ myApiTokens: { edges: unknown[] } }>('{ myApiTokens { edges { node { id } } } }');
    expect(myApiTokens.edges).toEqual([]);
  });

  it("are judged with each request's own variables, though the document was judged before", async () => {
    // The cost and the NUL check are remembered per parsed document (graphql-limits.ts): never across variables.
    const expensive = `query($n: Int) { ${Array.from({ length: 5 }, (_, i) => deliveryPage(`q${i}`, '$n')).join(' ')} }`;
    for (let round = 0; round < 2; round++) {
      expect((await post({ query: expensive, variables: { n: 5 } })).body.errors).toBeUndefined();
      const refused = await post({ query: expensive, variables: { n: 100 } });
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
    }
    const search = 'query($q: String) { storeApps(search: $q) { edges { cursor } } }';
    expect((await post({ query: search, variables: { q: 'quiz' } })).body.errors).toBeUndefined();
    const withNul = await post({ query: search, variables: { q: 'quiz\u0000' } });
    expect(withNul.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'q' });
  });

  it('are priced with the values a variable left out takes from its default, request by request', async () => {
    // `$n: Int = 100` sent without n runs with n = 100: priced as the default page of 20 it was let through.
    const defaulted = `query($n: Int = 100) { ${Array.from({ length: 5 }, (_, i) => deliveryPage(`d${i}`, '$n')).join(' ')} }`;
    for (let round = 0; round < 2; round++) {
      const refused = await post({ query: defaulted });
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
      // The same document with a small page sent, and with an explicit null (the field's own default page of 20), passes.
      expect((await post({ query: defaulted, variables: { n: 5 } })).body.errors).toBeUndefined();
      expect((await post({ query: defaulted, variables: { n: null } })).body.errors).toBeUndefined();
    }
  });

  it('ask for at most 100 items a page', async () => {
    const error = await developer.error('{ webhookDeliveries(first: 101) { edges { cursor } } }');
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
  });
});

describe('in production', () => {
  it('errors suggest no field names and carry no stack traces', async () => {
    const production = await startTestPlaza({ NODE_ENV: 'production', PLATFORM_ORIGIN: 'https://plaza.example', AUTH_DEV_SIGN_IN: 'true' });
    const client = await production.signIn('prod@studio.test');
    const typo = await client.request('{ mee { id } }');
    expect(typo.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(typo.errors?.[0]?.message).not.toMatch(/Did you mean/);
    expect(JSON.stringify(typo)).not.toMatch(/stacktrace|\.ts:\d+/);
    // Outside production the suggestion helps developers find the field.
    expect((await developer.request('{ mee { id } }')).errors?.[0]?.message).toMatch(/Did you mean "me"/);
  });
});

describe('rate limits', () => {
  it('answer RATE_LIMITED with Retry-After once an address has used its minute, per address', async () => {
    const limited = await startTestPlaza({ RATE_LIMIT_PER_ADDRESS: '5' });
    const anonymous = limited.anonymous();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await anonymous.request('{ categories { id } }')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const response = await fetch(`${limited.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ categories { id } }' }),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await response.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.extensions.code).toBe('RATE_LIMITED');
  });

  it('count an API token on its own bucket, whatever address it comes from', async () => {
    const limited = await startTestPlaza({ RATE_LIMIT_PER_API_TOKEN: '3' });
    const owner = await limited.signIn('integrator@studio.test');
    const { createApiToken } = await owner.ok<{ createApiToken: { token: string } }>('mutation { createApiToken(input: { name: "ci", scopes: ["apps:read"] }) { token } }');
    const integrator = owner.withToken(createApiToken.token);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await integrator.request('{ storeApps(first: 1) { edges { cursor } } }'));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(results[3]?.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    // The person behind the token is not held back by it.
    expect((await owner.request('{ me { id } }')).status).toBe(200);
  });
});
