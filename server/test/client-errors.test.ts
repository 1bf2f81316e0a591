import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { createTestDatabase } from './helpers/database.js';
import { GraphQLTestClient, type GraphQLErrorBody } from './helpers/graphql-client.js';
import { TEST_ENCRYPTION_KEY } from './helpers/plaza.js';
import { startPlazaProcess, type PlazaProcess } from './helpers/process.js';
import { waitUntil } from './faults/fault-helpers.js';

type LogLine = Record<string, any>;

let plaza: PlazaProcess;
let developer: GraphQLTestClient;
let socket: Client;

const logLines = (): LogLine[] =>
  plaza
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);

/** The errors one operation over the developer's graphql-ws connection ends with (an error message, or a result's errors). */
function overWebSocket(query: string, variables?: Record<string, unknown>): Promise<GraphQLErrorBody[]> {
  return new Promise((resolve, reject) => {
    socket.subscribe(
      { query, variables },
      {
        next: (result) => (result.errors?.length ? resolve(result.errors as GraphQLErrorBody[]) : reject(new Error(`expected an error, got ${JSON.stringify(result)}`))),
        error: (err) => (Array.isArray(err) ? resolve(err as GraphQLErrorBody[]) : reject(err)),
        complete: () => undefined,
      },
    );
  });
}

beforeAll(async () => {
  // A real Plaza process, so the test reads the log lines it writes, at info.
  plaza = await startPlazaProcess({
    DATABASE_URL: await createTestDatabase(),
    PORT: String(await findFreePort()),
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    WEB_DIST_DIR: '/nonexistent',
  });
  developer = await GraphQLTestClient.signIn(plaza.url, 'client-errors@studio.test');
  socket = developer.websocket();
});

afterAll(async () => {
  await socket?.dispose();
});

const mistakes: { name: string; query: string; variables?: Record<string, unknown>; message: RegExp; field?: string }[] = [
  { name: 'a syntax error', query: '{ me { id }', message: /^Syntax Error: Expected Name, found <EOF>\.$/ },
  { name: 'an unknown field', query: '{ mee { id } }', message: /^Cannot query field "mee" on type "Query"\./ },
  {
    name: 'two root fields in a subscription',
    query: 'subscription { notificationAdded { id } webhookDeliveryUpdated { id } }',
    message: /^Anonymous Subscription must select only one top level field\.$/,
  },
  { name: 'a missing variable', query: 'query($id: ID!) { app(id: $id) { id } }', message: /^Variable "\$id" of required type "ID!" was not provided\.$/ },
  { name: 'a variable of the wrong type', query: 'query($id: ID!) { app(id: $id) { id } }', variables: { id: { not: 'an id' } }, message: /^Variable "\$id" got invalid value/ },
  {
    name: 'several operations and no operation name',
    query: 'query A { me { id } } query B { me { id } }',
    message: /^Must provide operation name if query contains multiple operations\.$/,
  },
];

describe('a request the client got wrong', () => {
  for (const mistake of mistakes) {
    it(`(${mistake.name}) answers BAD_USER_INPUT with the same message over HTTP and graphql-ws`, async () => {
      const overHttp = await developer.request(mistake.query, mistake.variables);
      expect(overHttp.status).toBe(400);
      expect(overHttp.errors?.[0]).toMatchObject({ message: expect.stringMatching(mistake.message), extensions: { code: 'BAD_USER_INPUT' } });

      const overWs = await overWebSocket(mistake.query, mistake.variables);
      expect(overWs.map((e) => ({ message: e.message, code: e.extensions?.code }))).toEqual(overHttp.errors!.map((e) => ({ message: e.message, code: e.extensions?.code })));
    });
  }

  it('(a subscription with a variable of the wrong type) answers BAD_USER_INPUT over graphql-ws', async () => {
    const errors = await overWebSocket('subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id } }', { appId: { not: 'an id' } });
    expect(errors).toMatchObject([{ message: expect.stringMatching(/^Variable "\$appId" got invalid value/), extensions: { code: 'BAD_USER_INPUT' } }]);
  });

  it('as a subscription over HTTP is refused with 400 pointing at the WebSocket, and runs no resolver', async () => {
    const answer = await developer.request('subscription { notificationAdded { id createdAt } }');
    expect(answer.status).toBe(400);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toEqual([{ message: 'Subscriptions are served over WebSocket at /graphql (graphql-ws), not over HTTP', extensions: { code: 'BAD_USER_INPUT' } }]);
  });

  it('with an unknown persisted query hash answers PERSISTED_QUERY_NOT_FOUND, so APQ clients retry with the full query', async () => {
    const response = await fetch(`${plaza.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }),
    });
    const body = (await response.json()) as { errors: GraphQLErrorBody[] };
    expect(body.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }]);
    // And the retry with the full query and its hash is served.
    const query = '{ __typename }';
    const { createHash } = await import('node:crypto');
    const retry = await fetch(`${plaza.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } } }),
    });
    expect(await retry.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('with a persisted query hash that does not match its query is a client error, not a server fault', async () => {
    const response = await fetch(`${plaza.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ categories }', extensions: { persistedQuery: { version: 1, sha256Hash: 'b'.repeat(64) } } }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: GraphQLErrorBody[] };
    expect(body.errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('is logged as a client error at info, never at error level with a stack', async () => {
    // Every case above has run in this process by now (files run their tests in order): each mistake
    // once over HTTP and once over graphql-ws, the subscription's variable, the subscription over HTTP, two persisted queries.
    const expected = mistakes.length * 2 + 4;
    const clientErrorLines = () => logLines().filter((l) => l.msg === 'client error in a GraphQL operation');
    await waitUntil(`${expected} client error lines`, () => clientErrorLines().length >= expected, 10_000);
    const lines = logLines();
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.stack || l.err?.stack)).toBe(false);
    const clientErrors = clientErrorLines();
    for (const line of clientErrors) expect(line.level).toBe(30);
    expect(new Set(clientErrors.map((l) => l.clientError))).toEqual(
      new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'OPERATION_RESOLUTION_FAILURE', 'PERSISTED_QUERY_NOT_FOUND', 'BAD_REQUEST']),
    );
  });
});
