import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';

// Every route beside /graphql answers an error the way GraphQL does, so one client reads them all:
// {"errors":[{"message":"...","extensions":{"code":"...","field":"..."}}]}.

type ErrorBody = { errors: { message: string; extensions: Record<string, unknown> }[] };

/** The error a REST answer carries, after checking it is JSON in the one shape. */
async function restError(response: Response, status: number): Promise<ErrorBody['errors'][number]> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as ErrorBody;
  expect(Object.keys(body)).toEqual(['errors']);
  expect(body.errors).toHaveLength(1);
  const [error] = body.errors;
  if (!error) throw new Error('no error in the body');
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

const signIn = (url: string, body: unknown) => fetch(`${url}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('REST errors', () => {
  let plaza: TestPlaza;
  beforeAll(async () => {
    plaza = await startTestPlaza();
  });

  it('dev sign-in refuses a malformed e-mail as BAD_USER_INPUT naming the field', async () => {
    const error = await restError(await signIn(plaza.url, { email: 'not-an-email' }), 400);
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'email' });
    expect(error.message).toMatch(/e-mail address/);
  });

  it('OIDC routes on a platform without OIDC answer NOT_FOUND', async () => {
    for (const route of ['/auth/oidc/login?returnTo=/apps', '/auth/oidc/callback?state=x&code=y']) {
      const error = await restError(await fetch(`${plaza.url}${route}`, { redirect: 'manual' }), 404);
      expect(error.extensions).toEqual({ code: 'NOT_FOUND' });
      expect(error.message).toMatch(/OIDC sign-in is not configured/);
    }
  });

  it('an unknown API path and a body that is not JSON answer in the same shape', async () => {
    const missing = await restError(await fetch(`${plaza.url}/api/nothing`, { method: 'POST', headers: { accept: 'application/json' } }), 404);
    expect(missing.extensions).toEqual({ code: 'NOT_FOUND' });
    const garbled = await restError(await fetch(`${plaza.url}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":' }), 400);
    expect(garbled.extensions).toEqual({ code: 'BAD_USER_INPUT' });
  });

  it('dev sign-in turned off answers NOT_FOUND, and /metrics without its token UNAUTHENTICATED (the challenge header kept)', async () => {
    const locked = await startTestPlaza({ AUTH_DEV_SIGN_IN: 'false', METRICS_TOKEN: 'scrape-0123456789abcdef', RUN_WORKER: 'false' });
    const off = await restError(await signIn(locked.url, { email: 'a@b.c' }), 404);
    expect(off.extensions).toEqual({ code: 'NOT_FOUND' });

    const refused = await fetch(`${locked.url}/metrics`, { headers: { authorization: 'Bearer wrong' } });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="plaza-metrics"');
    const error = await restError(refused, 401);
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(error.message).toMatch(/METRICS_TOKEN/);
  });

  it('an address past its limit at /auth gets RATE_LIMITED with the wait, in the header and the body', async () => {
    const limited = await startTestPlaza({ RATE_LIMIT_PER_ADDRESS: '2', RUN_WORKER: 'false' });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await signIn(limited.url, { email: `limited${i}@studio.test` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const retryAfter = Number(last!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    const error = await restError(last!, 429);
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: retryAfter });
  });
});
