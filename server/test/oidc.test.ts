import { beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { startTestOidcProvider } from './helpers/oidc-provider.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';

const CLIENT = { client_id: 'plaza', client_secret: 'plaza-test-secret' };
const ADA = { sub: 'oidc-ada-1815', email: 'ada@example.test', email_verified: true };
const UNVERIFIED = { sub: 'oidc-mallory-1', email: 'mallory@example.test', email_verified: false };

let plaza: TestPlaza;
let issuer: string;

beforeAll(async () => {
  // The provider must know Plaza's callback before Plaza starts, so Plaza's port is chosen here.
  const port = await findFreePort();
  const origin = `http://127.0.0.1:${port}`;
  ({ issuer } = await startTestOidcProvider({ ...CLIENT, redirect_uris: [`${origin}/auth/oidc/callback`] }, [ADA, UNVERIFIED]));
  plaza = await startTestPlaza({
    PORT: String(port),
    PLATFORM_ORIGIN: origin,
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: CLIENT.client_id,
    OIDC_CLIENT_SECRET: CLIENT.client_secret,
  });
});

/** Follows nothing by itself and keeps each origin's cookies, as a browser tab would. */
class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  cookies(origin: string): Map<string, string> {
    if (!this.jar.has(origin)) this.jar.set(origin, new Map());
    return this.jar.get(origin)!;
  }

  async fetch(url: string | URL, init: { method?: string; headers?: Record<string, string>; body?: URLSearchParams } = {}): Promise<Response> {
    const cookies = this.cookies(new URL(url).origin);
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      const expires = attributes.find((a) => /^\s*expires=/i.test(a));
      const removed = !value || (expires && Date.parse(expires.split('=')[1] ?? '') <= Date.now());
      if (removed) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  }
}

const locationOf = (response: Response, base: string | URL) => new URL(response.headers.get('location') ?? '', base);

/**
 * Starts a sign-in at Plaza and goes through the provider's login and consent forms as the user
 * `accountId`, stopping where the provider sends the browser back to Plaza's callback.
 */
async function signInAtProvider(browser: Browser, accountId: string, returnTo = '/apps'): Promise<URL> {
  const start = await browser.fetch(`${plaza.url}/auth/oidc/login?returnTo=${encodeURIComponent(returnTo)}`);
  expect(start.status).toBe(302);
  let url = locationOf(start, plaza.url);
  expect(url.origin).toBe(issuer);
  for (let step = 0; step < 10; step += 1) {
    if (url.pathname === '/auth/oidc/callback') return url;
    let response = await browser.fetch(url);
    if (response.status === 200) {
      const form = await response.text();
      const prompt = /name="prompt" value="(\w+)"/.exec(form)?.[1];
      // The provider's development login and consent forms post back to the page that shows them.
      const fields: Record<string, string> = prompt === 'login' ? { prompt, login: accountId, password: 'anything' } : { prompt: prompt ?? '' };
      response = await browser.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    }
    if (![302, 303].includes(response.status)) throw new Error(`provider answered ${response.status} at ${url}: ${await response.text()}`);
    url = locationOf(response, url);
  }
  throw new Error('the provider never sent the browser back to Plaza');
}

async function me(session: string) {
  const response = await fetch(`${plaza.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `plaza_session=${session}` },
    body: JSON.stringify({ query: '{ me { id email roles } }' }),
  });
  return (await response.json()) as { data?: { me: { id: string; email: string; roles: string[] } | null }; errors?: unknown[] };
}

describe('OIDC sign-in', () => {
  it('signs the user in with the provider’s subject and e-mail, in an HTTP-only cookie, and returns to returnTo', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, ADA.sub);
    expect(callback.origin).toBe(plaza.url);

    const landing = await browser.fetch(callback);
    expect(landing.status, await landing.clone().text()).toBe(302);
    expect(landing.headers.get('location')).toBe('/apps');
    const setCookie = landing.headers.getSetCookie().find((c) => c.startsWith('plaza_session='));
    expect(setCookie).toMatch(/;\s*HttpOnly/i);

    const session = browser.cookies(plaza.url).get('plaza_session')!;
    const { data, errors } = await me(session);
    expect(errors).toBeUndefined();
    expect(data?.me).toEqual({ id: ADA.sub, email: ADA.email, roles: ['DEVELOPER', 'USER'] });
  });

  it('refuses the same callback a second time, because a state is good for one sign-in only', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, ADA.sub);
    const first = await browser.fetch(callback);
    expect(first.status, await first.clone().text()).toBe(302);

    const replay = await browser.fetch(callback);
    expect(replay.status).toBe(400);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('plaza_session='))).toBe(false);
  });

  it('refuses a callback whose state Plaza never issued', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, ADA.sub);
    callback.searchParams.set('state', 'a-state-plaza-never-issued');

    const response = await browser.fetch(callback);
    expect(response.status).toBe(400);
    expect(browser.cookies(plaza.url).has('plaza_session')).toBe(false);
  });

  it('returns to / instead of following a returnTo on another site', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, ADA.sub, '//evil.example');

    const landing = await browser.fetch(callback);
    expect(landing.status, await landing.clone().text()).toBe(302);
    expect(landing.headers.get('location')).toBe('/');
  });

  it('refuses an account whose e-mail the provider has not verified', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, UNVERIFIED.sub);

    const response = await browser.fetch(callback);
    expect(response.status).toBe(403);
    expect(browser.cookies(plaza.url).has('plaza_session')).toBe(false);
  });
});

describe('OIDC sign-in on a platform without OIDC_ISSUER', () => {
  let plain: TestPlaza;
  beforeAll(async () => {
    plain = await startTestPlaza();
  });

  it('answers 404 at /auth/oidc/login', async () => {
    const response = await fetch(`${plain.url}/auth/oidc/login?returnTo=/apps`, { redirect: 'manual' });
    expect(response.status).toBe(404);
  });
});
