import { getIntrospectionQuery, type IntrospectionOptions } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { GRAPHQL_LIMITS } from '../src/platform/graphql-limits.js';

type Answer = { status: number; bytes: number; ms: number; data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };

/** 30 aliased copies of the schema's types with their fields, their arguments and types: 9.5 kB that answered 4.8 MB. */
function aliasedSchemaDump(copies: number = GRAPHQL_LIMITS.maxAliases): string {
  const inputValue = 'name description defaultValue isDeprecated deprecationReason type { ...Ref }';
  const type = `kind name description specifiedByURL fields(includeDeprecated: true) { name description isDeprecated deprecationReason args(includeDeprecated: true) { ${inputValue} } type { ...Ref } } inputFields(includeDeprecated: true) { ${inputValue} } interfaces { ...Ref } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...Ref }`;
  const copiesText = Array.from({ length: copies }, (_, i) => `s${i}: __schema { types { ${type} } }`).join('\n');
  return `query Dump {\n${copiesText}\n}\nfragment Ref on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`;
}

async function post(plaza: TestPlaza, query: string, token?: string): Promise<Answer> {
  const startedAt = performance.now();
  const response = await fetch(`${plaza.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  const ms = performance.now() - startedAt;
  return { status: response.status, bytes: text.length, ms, ...(JSON.parse(text) as Pick<Answer, 'data' | 'errors'>) };
}

function expectRefusedAsTooComplex(answer: Pick<Answer, 'status' | 'data' | 'errors'>): void {
  expect(answer.status).toBe(400);
  expect(answer.data).toBeUndefined();
  expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
  expect(answer.errors?.[0]?.message).toMatch(/introspect/);
}

/** Every variant of the query GraphiQL (and graphql's own tools) send: each option on or off. */
const OPTIONS = ['descriptions', 'specifiedByUrl', 'directiveIsRepeatable', 'schemaDescription', 'inputValueDeprecation', 'oneOf'] as const;
const introspectionVariants: IntrospectionOptions[] = Array.from({ length: 2 ** OPTIONS.length }, (_, bits) =>
  Object.fromEntries(OPTIONS.map((option, i) => [option, (bits & (1 << i)) !== 0])),
);

describe.each([
  ['development', {}],
  ['production', { NODE_ENV: 'production', PLATFORM_ORIGIN: 'https://plaza.example', AUTH_DEV_SIGN_IN: 'true' }],
])('introspection in %s', (_mode, env: Record<string, string>) => {
  let plaza: TestPlaza;

  beforeAll(async () => {
    plaza = await startTestPlaza(env);
  });

  it('of the whole schema thirty times over in one document is refused before it runs, signed out or in', async () => {
    const dump = aliasedSchemaDump();
    expect(dump.length).toBeGreaterThan(3_000);
    const signedOut = await post(plaza, dump);
    expectRefusedAsTooComplex(signedOut);
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    expectRefusedAsTooComplex(await post(plaza, dump, reviewer.token));
    // What it took to say no, and how large the answer is (the same document ran, 4.8 MB, before).
    console.info(`[introspection] ${dump.length} characters refused in ${signedOut.ms.toFixed(0)} ms, ${signedOut.bytes} bytes answered`);
  });

  it('of the whole schema once, as GraphiQL asks it, passes signed in, with every option of the standard query', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    for (const options of introspectionVariants) {
      const answer = await post(plaza, getIntrospectionQuery(options), reviewer.token);
      expect(answer.errors, JSON.stringify(options)).toBeUndefined();
      expect((answer.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(50);
    }
  }, 60_000);

  it('of a few types by name passes', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const answer = await post(plaza, '{ a: __type(name: "App") { fields { name type { name } } } b: __type(name: "Query") { fields { name args { name } } } }', reviewer.token);
    expect(answer.errors).toBeUndefined();
  });
});

describe('introspection over graphql-ws', () => {
  it('is refused there the same way', async () => {
    const plaza = await startTestPlaza();
    const developer = await plaza.signIn('introspector@studio.test');
    const live = developer.websocket();
    try {
      const result = await new Promise<{ errors?: Answer['errors']; data?: unknown }>((resolve) => {
        live.subscribe(
          { query: aliasedSchemaDump() },
          { next: (value) => resolve(value as never), error: (errors) => resolve({ errors: errors as Answer['errors'] }), complete: () => resolve({}) },
        );
      });
      expect(result.data ?? undefined).toBeUndefined();
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
      const once = await new Promise<{ errors?: unknown; data?: unknown }>((resolve) => {
        live.subscribe({ query: getIntrospectionQuery() }, { next: (value) => resolve(value as never), error: (errors) => resolve({ errors }), complete: () => resolve({}) });
      });
      expect(once.errors).toBeUndefined();
    } finally {
      await live.dispose();
    }
  });
});
