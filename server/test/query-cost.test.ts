import fc from 'fast-check';
import { getNamedType, getNullableType, isListType, isObjectType, parse, specifiedRules, validate, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp, SUBMIT_APP, validAppInput } from './helpers/factories.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { buildPlazaSchema } from '../src/app/schema.js';
import { estimateCost, GRAPHQL_LIMITS, limitRules, listBoundOf } from '../src/platform/graphql-limits.js';

/** A small per-account limit, so the test can reach it; no worker, so only requests touch the database. */
const MAX_APPS = 40;

let plaza: TestPlaza;
let schema: GraphQLSchema;

beforeAll(async () => {
  plaza = await startTestPlaza({ RUN_WORKER: 'false', MAX_APPS_PER_DEVELOPER: String(MAX_APPS) });
  schema = await buildPlazaSchema();
});

type Errors = { message: string; extensions?: Record<string, unknown> }[];

/** `...F0`, each Fi spreading F(i+1) twice: 1 KB of text that a walk spread by spread prices at 2^n. */
function doublingFragments(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${n} on Query { categories { id } }`;
}

async function postAnonymously(query: string): Promise<{ status: number; errors?: Errors; ms: number }> {
  const startedAt = performance.now();
  const response = await fetch(`${plaza.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const body = (await response.json()) as { errors?: Errors };
  return { status: response.status, errors: body.errors, ms: performance.now() - startedAt };
}

async function healthzMs(): Promise<number> {
  const startedAt = performance.now();
  const response = await fetch(`${plaza.url}/healthz`);
  expect(response.status).toBe(200);
  return performance.now() - startedAt;
}

describe('a document of fragments spread twice over', () => {
  it('is refused over HTTP as too complex, promptly, while /healthz keeps answering', async () => {
    // 24 levels took 67 s in production, and /healthz waited as long. Bounds here are generous:
    // a linear check answers in milliseconds even on a loaded machine.
    const document = doublingFragments(24);
    expect(document.length).toBeLessThan(1_500);
    const sending = Promise.all(Array.from({ length: 4 }, () => postAnonymously(document)));
    const health: number[] = [];
    for (let i = 0; i < 5; i++) health.push(await healthzMs());
    const refusals = await sending;
    for (const refused of refusals) {
      expect(refused.status).toBe(400);
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
      expect(refused.ms).toBeLessThan(5_000);
    }
    expect(Math.max(...health)).toBeLessThan(2_000);
  }, 30_000);

  it('is refused over graphql-ws the same way', async () => {
    const developer = await plaza.signIn('fragments@studio.test');
    const live = developer.websocket();
    try {
      const startedAt = performance.now();
      const errors = await new Promise<unknown>((resolve) => {
        live.subscribe({ query: doublingFragments(24) }, { next: (value) => resolve(value.errors), error: resolve, complete: () => resolve(undefined) });
      });
      expect((errors as Errors)?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
      expect(performance.now() - startedAt).toBeLessThan(5_000);
      expect(await healthzMs()).toBeLessThan(2_000);
    } finally {
      await live.dispose();
    }
  }, 30_000);
});

/**
 * Random graphs of fragments: Query fragments Q0..Qm and Category fragments C0..Ck, each spreading
 * later ones of its kind one to three times (so a walk spread by spread grows exponentially), mixed
 * with fields and aliases. Nothing here needs the database: the real schema and the real rules.
 */
const fragmentGraph = fc
  .record({
    queries: fc.array(
      fc.record({
        spreads: fc.array(fc.record({ ahead: fc.integer({ min: 1, max: 3 }), times: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 3 }),
        fields: fc.subarray(['__typename', 'me { id email }', 'categories { id }', 'c: categories { name }', 'categories { ...C0 }', 'categories { ...C1 label }']),
      }),
      { minLength: 8, maxLength: 60 },
    ),
    categories: fc.array(
      fc.record({
        spreads: fc.array(fc.record({ ahead: fc.integer({ min: 1, max: 3 }), times: fc.integer({ min: 1, max: 3 }) }), { maxLength: 3 }),
        fields: fc.subarray(['id', 'name', 'label', 'n: name', '__typename']),
      }),
      { minLength: 2, maxLength: 40 },
    ),
  })
  .map(({ queries, categories }) => {
    const body = (kind: 'Q' | 'C', i: number, count: number, node: { spreads: { ahead: number; times: number }[]; fields: string[] }) => {
      const spreads = node.spreads.filter((s) => i + s.ahead < count).flatMap((s) => Array.from({ length: s.times }, () => `...${kind}${i + s.ahead}`));
      const parts = [...node.fields, ...spreads];
      return parts.length ? parts.join(' ') : '__typename';
    };
    const definitions = [
      ...queries.map((q, i) => `fragment Q${i} on Query { ${body('Q', i, queries.length, q)} }`),
      ...categories.map((c, i) => `fragment C${i} on Category { ${body('C', i, categories.length, c)} }`),
    ];
    return `query { ...Q0 } ${definitions.join('\n')}`;
  });

/** Everything a document goes through before it runs: parsing, graphql-js's rules and ours, the cost. */
function judge(text: string): void {
  const document = parse(text, { maxTokens: GRAPHQL_LIMITS.maxTokens });
  validate(schema, document, [...specifiedRules, ...limitRules]);
  estimateCost(schema, document, {});
}

describe('judging a document', () => {
  it('takes time in proportion to its size, whatever its graph of fragments', () => {
    fc.assert(
      fc.property(fragmentGraph, (text) => {
        try {
          parse(text, { maxTokens: GRAPHQL_LIMITS.maxTokens });
        } catch {
          return; // over the token limit: refused while parsing, before any walk
        }
        const startedAt = performance.now();
        judge(text);
        const ms = performance.now() - startedAt;
        // A generous constant per character: a linear check takes microseconds per character, while a
        // walk spread by spread takes seconds on graphs this size (2^8 paths and far more).
        expect(ms, `${Math.round(ms)} ms for ${text.length} characters`).toBeLessThan(100 + text.length * 0.2);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

/** The SQL statements TypeORM sends while `run` runs (the worker is off: nothing else is asking). */
async function queriesDuring<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const logQuery = vi.spyOn(plaza.services.db.logger, 'logQuery');
  try {
    const result = await run();
    return { result, queries: logQuery.mock.calls.map((call) => String(call[0])) };
  } finally {
    logQuery.mockRestore();
  }
}

const PER_APP_FIELDS = 'id reviewDecisions { outcome } preChecks { status } clientSecretAudit { action } earnings { salesCount }';

describe('a developer with many apps', () => {
  let developer: GraphQLTestClient;
  let appIds: string[];

  beforeAll(async () => {
    developer = await plaza.signIn('prolific@studio.test');
    appIds = [];
    for (let i = 0; i < MAX_APPS; i++) appIds.push((await submitApp(developer)).id);
  }, 120_000);

  it('cannot submit past MAX_APPS_PER_DEVELOPER: CONFLICT with a reason, nothing stored; others still can', async () => {
    const refused = await developer.request(SUBMIT_APP, { input: validAppInput({ name: 'One Too Many' }) });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', reason: 'TOO_MANY_APPS' });
    expect(refused.errors?.[0]?.message).toMatch(/40 apps, the most one account may have/);
    const { myApps } = await developer.ok<{ myApps: { id: string; name: string }[] }>('{ myApps { id name } }');
    expect(myApps).toHaveLength(MAX_APPS);
    expect(myApps.map((a) => a.name)).not.toContain('One Too Many');
    await submitApp(await plaza.signIn('newcomer@studio.test'));
  });

  it('reads every per-app field of myApps in a bounded number of queries, each app getting its own', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    await reviewer.ok(DECIDE, { input: { appId: appIds[0], outcome: 'REJECTED', reasons: ['INVALID_ICON'] } });
    await developer.ok('mutation($id: ID!) { revealClientSecret(appId: $id) { value } }', { id: appIds[1] });

    const { result, queries } = await queriesDuring(() => developer.ok<{ myApps: any[] }>(`{ myApps { ${PER_APP_FIELDS} } }`));
    expect(result.myApps).toHaveLength(MAX_APPS);
    const byId = new Map(result.myApps.map((app) => [app.id, app]));
    expect(byId.get(appIds[0]).reviewDecisions).toEqual([{ outcome: 'REJECTED' }]);
    expect(byId.get(appIds[1]).clientSecretAudit).toEqual([{ action: 'REVEAL' }]);
    for (const app of result.myApps) {
      if (app.id !== appIds[0]) expect(app.reviewDecisions).toEqual([]);
      if (app.id !== appIds[1]) expect(app.clientSecretAudit).toEqual([]);
      expect(app.preChecks).toEqual({ status: 'PENDING' });
      expect(app.earnings).toEqual({ salesCount: 0 });
    }
    // One query per field for all 40 apps (and the sign-in's own), where there was one per app per field (160).
    expect(queries.length).toBeLessThanOrEqual(10);
  });

  it('asking myApps under 30 aliases with per-app fields is refused as too complex, before anything runs', async () => {
    const aliased = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: myApps { ${PER_APP_FIELDS} }`).join(' ')} }`;
    const { result: refused, queries } = await queriesDuring(() => developer.request(aliased));
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'QUERY_TOO_COMPLEX' });
    expect(queries.filter((sql) => /\bapps\b|review_decisions|app_pre_checks|client_secret_audit|revenue_ledger/.test(sql))).toEqual([]);
    // Names alone under 30 aliases cost what they return (30 x 40 apps) and are fine.
    const names = await developer.ok<Record<string, unknown[]>>(`{ ${Array.from({ length: 30 }, (_, i) => `a${i}: myApps { id name }`).join(' ')} }`);
    expect(names.a29).toHaveLength(MAX_APPS);
  });
});

describe('the cost estimate', () => {
  it('knows how many items every list of objects in the schema may return', () => {
    // MAX_APPS_PER_DEVELOPER and WEBHOOK_ENDPOINTS_PER_APP, declared at start-up.
    const configured = new Set(['Query.myApps', 'Query.myEarnings', 'App.webhookEndpoints']);
    const unbounded: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const coordinate = `${type.name}.${field.name}`;
        const listOfObjects = isListType(getNullableType(field.type)) && isObjectType(getNamedType(field.type));
        const paged = field.args.some((a) => a.name === 'first') || (type.name.endsWith('Connection') && field.name === 'edges');
        if (listOfObjects && !paged && !configured.has(coordinate) && listBoundOf(schema, coordinate) === undefined) unbounded.push(coordinate);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('counts myApps by MAX_APPS_PER_DEVELOPER, whose default is 100', () => {
    expect(loadConfig({ SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), DATA_DIR: '/tmp/plaza-config-test' }).maxAppsPerDeveloper).toBe(100);
    expect(() => loadConfig({ SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), DATA_DIR: '/tmp/plaza-config-test', MAX_APPS_PER_DEVELOPER: '0' })).toThrow(
      ConfigError,
    );
  });
});
