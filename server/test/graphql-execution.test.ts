import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';

/**
 * Operations run compiled (graphql-jit, app/jit-executor.ts); what a client sees of a failure must
 * stay what graphql-js gave: the field's path and place in the document, the contract's code and field.
 */
let plaza: TestPlaza;

beforeAll(async () => {
  plaza = await startTestPlaza();
});

async function postOnce(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${plaza.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A document's first run is graphql-js's, later ones are compiled: both must answer the same. */
async function post(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const first = await postOnce(query, variables);
  const compiled = await postOnce(query, variables);
  expect(compiled).toEqual(first);
  return compiled;
}

describe('compiled operations', () => {
  it("answer GraphiQL's introspection exactly as graphql-js does", async () => {
    const { status, body } = await post(getIntrospectionQuery());
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('errors of compiled operations', () => {
  it("a resolver's bad input keeps its path, location, code and field", async () => {
    const { status, body } = await post('{\n  categories { id }\n  storeApps(category: "no-such-category") { edges { cursor } }\n}');
    expect(status).toBe(200);
    // storeApps is non-null, so its failure nulls the whole data, as graphql-js does.
    expect(body.data).toBeNull();
    expect(body.errors).toEqual([
      {
        message: expect.stringContaining('category must be one of'),
        locations: [{ line: 3, column: 3 }],
        path: ['storeApps'],
        extensions: { code: 'BAD_USER_INPUT', field: 'category' },
      },
    ]);
  });

  it('an operation that needs a sign-in answers UNAUTHENTICATED at its path', async () => {
    const { body } = await post('query Mine { myApps { id } }');
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ path: ['myApps'], locations: [{ line: 1, column: 14 }], extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('variables that do not fit their types are refused with 400 and BAD_USER_INPUT, as graphql-js words it', async () => {
    const { status, body } = await post('query($first: Int) { storeApps(first: $first) { edges { cursor } } }', { first: 'twenty' });
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].message).toMatch(/^Variable "\$first" got invalid value "twenty"/);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
