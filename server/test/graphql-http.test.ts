import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { createTestDatabase } from './helpers/database.js';
import { startTestPlaza, TEST_ENCRYPTION_KEY, type TestPlaza } from './helpers/plaza.js';
import { startPlazaProcess } from './helpers/process.js';
import { KEPT_ANSWER_MIN_LENGTH } from '../src/app/graphql-http.js';

// POST /graphql as GraphQL clients send it is answered without Express (app/graphql-http.ts); /graphql/ (a
// trailing slash) is still Express's, through the same middleware as before. Whatever a client sends, both
// must answer the same: status, body and every header but the ones that differ per request.

type Exchange = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

function post(url: string, urlPath: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const req = httpRequest(`${url}${urlPath}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** The answer without what differs from one request to the next (the date, a new request id). */
const comparable = ({ status, headers, body }: Exchange) => {
  const { date: _date, 'x-request-id': _id, ...rest } = headers;
  return { status, headers: rest, body };
};

/** Both paths, one after the other, as comparable answers. */
async function bothPaths(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const lean = await post(url, '/graphql', body, headers);
  const express = await post(url, '/graphql/', body, headers);
  return { lean: comparable(lean), express: comparable(express), leanRaw: lean };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('POST /graphql without Express', () => {
  let plaza: TestPlaza;
  beforeAll(async () => {
    plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  });

  const cases: [string, string | Buffer, Record<string, string>?][] = [
    ['the floor', JSON.stringify({ query: '{ __typename }' })],
    ['a query string beside the body', JSON.stringify({ query: 'query Q { __typename }', operationName: 'Q' })],
    ['JSON cut short', '{"query":'],
    ['JSON that is a string, not an object', '"{ __typename }"'],
    ['a number after spaces', '  \n 42'],
    ['only spaces', '   '],
    ['a byte-order mark before the JSON', Buffer.concat([BOM, Buffer.from(JSON.stringify({ query: '{ __typename }' }))])],
    ['an empty object (no query)', '{}'],
    ['an array (a batch, which Plaza refuses)', JSON.stringify([{ query: '{ __typename }' }])],
    ['a field the schema lacks', JSON.stringify({ query: '{ nope }' })],
    ['a document that does not parse', JSON.stringify({ query: '{ __typename' })],
    ['a variable of the wrong type', JSON.stringify({ query: 'query S($first: Int) { storeApps(first: $first) { edges { cursor } } }', variables: { first: 'many' } })],
    ['a subscription over HTTP', JSON.stringify({ query: 'subscription { webhookDeliveryUpdated(appId: "app_x") { id } }' })],
    ['a NUL in a string', JSON.stringify({ query: 'query S($c: String) { storeApps(first: 1, category: $c) { edges { cursor } } }', variables: { c: 'a\u0000b' } })],
    ['a credential that is not one', JSON.stringify({ query: '{ __typename }' }), { authorization: 'Bearer plz_not_a_token' }],
    ['a charset named in the content type', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/json; charset=utf-8' }],
    ['a sane request id of the caller', JSON.stringify({ query: '{ __typename }' }), { 'x-request-id': 'caller-id-1' }],
  ];

  it.each(cases)('answers %s as Express does', async (_name, body, headers) => {
    const { lean, express } = await bothPaths(plaza.url, body, headers);
    expect(lean).toEqual(express);
  });

  it('carries the security headers, no-store, an ETag and the request id on every answer, the caller’s when sane', async () => {
    const { leanRaw } = await bothPaths(plaza.url, JSON.stringify({ query: '{ __typename }' }), { 'x-request-id': 'caller-id-2' });
    expect(leanRaw.status).toBe(200);
    expect(leanRaw.body).toBe('{"data":{"__typename":"Query"}}\n');
    expect(leanRaw.headers).toMatchObject({
      'content-security-policy': expect.stringContaining("default-src 'none'"),
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'cache-control': 'no-store',
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(leanRaw.body)),
      etag: expect.stringMatching(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/),
      'x-request-id': 'caller-id-2',
    });
    const forged = await post(plaza.url, '/graphql', JSON.stringify({ query: '{ __typename }' }), { 'x-request-id': 'two words' });
    expect(forged.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives each answer its own ETag and length: the same answer again the same, different ones in between their own', async () => {
    // Long answers (the schema's types) have their bytes and ETag kept for the next identical one; short ones not.
    const long = JSON.stringify({ query: '{ __schema { types { name description } } }' });
    const short = JSON.stringify({ query: '{ __typename }' });
    const otherLong = JSON.stringify({ query: '{ __schema { types { name kind } } }' });
    const bodies = [long, short, long, otherLong, long];
    const answers = [];
    for (const body of bodies) answers.push(await post(plaza.url, '/graphql', body));
    expect(answers[0]!.body.length).toBeGreaterThanOrEqual(KEPT_ANSWER_MIN_LENGTH);
    expect(answers[3]!.body.length).toBeGreaterThanOrEqual(KEPT_ANSWER_MIN_LENGTH);
    expect(new Set(answers.map((answer) => answer.headers.etag)).size).toBe(3);
    expect([answers[2]!.headers.etag, answers[4]!.headers.etag]).toEqual([answers[0]!.headers.etag, answers[0]!.headers.etag]);
    // Each as Express makes it for its own bytes.
    for (const [index, answer] of answers.entries()) {
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
      expect(answer.headers.etag).toBe((await post(plaza.url, '/graphql/', bodies[index]!)).headers.etag);
    }
  });

  it('answers a signed-out store read from the response cache with the bytes and headers Express would', async () => {
    const read = JSON.stringify({ query: 'query StoreApps($first: Int) { storeApps(first: $first) { edges { cursor } } }', variables: { first: 5 } });
    const first = await post(plaza.url, '/graphql', read);
    expect(first.headers['x-plaza-cache']).toBe('miss');
    const { lean, express } = await bothPaths(plaza.url, read);
    expect(lean.headers['x-plaza-cache']).toBe('hit');
    expect(lean).toEqual(express);
    expect(lean.body).toBe(first.body);
  });

  it('refuses an address past its limit with 429 and the wait, as Express does, before reading the body', async () => {
    const limited = await startTestPlaza({ RATE_LIMIT_PER_ADDRESS: '2', RUN_WORKER: 'false' });
    const floor = JSON.stringify({ query: '{ __typename }' });
    const statuses = [(await post(limited.url, '/graphql', floor)).status, (await post(limited.url, '/graphql', floor)).status];
    expect(statuses).toEqual([200, 200]);
    const { lean, express, leanRaw } = await bothPaths(limited.url, floor);
    expect(lean.status).toBe(429);
    expect(Number(leanRaw.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(lean.body)).toEqual({
      errors: [
        { message: expect.stringMatching(/Too many requests from this address/), extensions: { code: 'RATE_LIMITED', retryAfterSeconds: Number(leanRaw.headers['retry-after']) } },
      ],
    });
    expect(lean).toEqual(express);
  });

  it('counts each client behind a trusted proxy on its own address (the first of X-Forwarded-For)', async () => {
    const behindProxy = await startTestPlaza({ RATE_LIMIT_PER_ADDRESS: '1', TRUST_PROXY: 'true', RUN_WORKER: 'false' });
    const floor = JSON.stringify({ query: '{ __typename }' });
    const statusFrom = async (forwarded: string) => (await post(behindProxy.url, '/graphql', floor, { 'x-forwarded-for': forwarded })).status;
    expect([await statusFrom('203.0.113.7, 10.0.0.1'), await statusFrom('203.0.113.8'), await statusFrom('203.0.113.7')]).toEqual([200, 200, 429]);
  });

  it('writes one access line per request with its request id, as every other route does (the built server, its stdout)', async () => {
    const server = await startPlazaProcess({
      DATABASE_URL: await createTestDatabase(),
      PORT: String(await findFreePort()),
      SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEB_DIST_DIR: '/nonexistent',
      RUN_WORKER: 'false',
    });
    const answered = await post(server.url, '/graphql', JSON.stringify({ query: '{ __typename }' }), { 'x-request-id': 'lean-line-1' });
    const refused = await post(server.url, '/graphql', '{"query":', { 'x-request-id': 'lean-line-2' });
    expect([answered.status, refused.status]).toEqual([200, 400]);
    const accessLines = () =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.requestId === 'lean-line-1' || line.requestId === 'lean-line-2');
    await vi.waitFor(() => expect(accessLines()).toHaveLength(2), { timeout: 10_000 });
    expect(accessLines()).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: expect.any(Number),
        hostname: expect.any(String),
        requestId: 'lean-line-1',
        method: 'POST',
        path: '/graphql',
        status: 200,
        durationMs: expect.any(Number),
        msg: 'request',
      },
      {
        level: 30,
        time: expect.any(Number),
        pid: expect.any(Number),
        hostname: expect.any(String),
        requestId: 'lean-line-2',
        method: 'POST',
        path: '/graphql',
        status: 400,
        durationMs: expect.any(Number),
        msg: 'request',
      },
    ]);
  });
});
