import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';

/** A built web app as `vite build` lays it out: index.html, hashed assets with .br/.gz beside them, public files. */
const webDist = mkdtempSync(path.join(tmpdir(), 'plaza-web-dist-'));
const INDEX_HTML = '<!doctype html><html><head><script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const ENTRY_JS = `console.log(${JSON.stringify('plaza '.repeat(400))});\n`;

let plaza: TestPlaza;

beforeAll(async () => {
  mkdirSync(path.join(webDist, 'assets'));
  writeFileSync(path.join(webDist, 'index.html'), INDEX_HTML);
  writeFileSync(path.join(webDist, 'assets/index-Ab12Cd34.js'), ENTRY_JS);
  writeFileSync(path.join(webDist, 'assets/index-Ab12Cd34.js.br'), brotliCompressSync(ENTRY_JS));
  writeFileSync(path.join(webDist, 'assets/index-Ab12Cd34.js.gz'), gzipSync(ENTRY_JS));
  writeFileSync(path.join(webDist, 'robots.txt'), 'User-agent: *\nDisallow: /developer\n');
  // No favicon.ico in this build: asking for it must be a 404, not the SPA.
  plaza = await startTestPlaza({ WEB_DIST_DIR: webDist });
});

afterAll(() => rmSync(webDist, { recursive: true, force: true }));

/** A raw HTTP exchange (fetch would add its own Accept-Encoding and decompress the body). */
function raw(
  urlPath: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${plaza.url}${urlPath}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const directives = (csp: string | null) =>
  new Map(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values] as const),
  );

describe('the web app page', () => {
  it('may run only its own scripts, frames only https apps, and cannot itself be framed', async () => {
    const response = await fetch(`${plaza.url}/developer/apps/app_01ABC`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(INDEX_HTML);
    const csp = directives(response.headers.get('content-security-policy'));
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('frame-src')).toEqual(['https:']);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    // Served over plain http here: HSTS would be meaningless.
    expect(response.headers.get('strict-transport-security')).toBeNull();
    // A deploy's new asset names must be seen on the next load.
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('sends HSTS when the platform is served over https', async () => {
    const secure = await startTestPlaza({ WEB_DIST_DIR: webDist, PLATFORM_ORIGIN: 'https://plaza.example' });
    const response = await fetch(`${secure.url}/`);
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });

  it('API answers may do nothing in a browser and cannot be framed either', async () => {
    const response = await fetch(`${plaza.url}/healthz`);
    expect(directives(response.headers.get('content-security-policy')).get('default-src')).toEqual(["'none'"]);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sign-in answers are never cached', async () => {
    const response = await fetch(`${plaza.url}/auth/dev/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cache@studio.test' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('assets', () => {
  it('are sent as the build compressed them, brotli first, gzip next, plain otherwise; hashed ones cached for a year', async () => {
    const brotli = await raw('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.status).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.body).toString()).toBe(ENTRY_JS);
    expect(brotli.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const gzip = await raw('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(ENTRY_JS);
    expect(gzip.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const plain = await raw('/assets/index-Ab12Cd34.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(ENTRY_JS);
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('that do not exist are a 404, not the web app with 200', async () => {
    const missing = await raw('/assets/index-Gone0000.js', { accept: '*/*' });
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).not.toContain('<html');
    expect((await raw('/favicon.ico')).status).toBe(404);
  });

  it('robots.txt is served as text', async () => {
    const robots = await fetch(`${plaza.url}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await robots.text()).toContain('User-agent: *');
  });
});

describe('unknown paths', () => {
  it('asked for as JSON are a JSON 404', async () => {
    const response = await fetch(`${plaza.url}/api/v1/apps`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
  });

  it('with a method other than GET are a 404, JSON unless HTML is preferred', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await fetch(`${plaza.url}/apps/app_01ABC/open`, { method });
      expect(response.status, method).toBe(404);
      expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
    }
  });
});

describe('/graphql', () => {
  it('answers OPTIONS and HEAD instead of refusing them as CSRF', async () => {
    const options = await fetch(`${plaza.url}/graphql`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    // No cross-origin access is granted by answering.
    expect(options.headers.get('access-control-allow-origin')).toBeNull();
    const head = await fetch(`${plaza.url}/graphql`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('opened in a browser leads to GraphiQL; a browser form with a query is still refused as CSRF', async () => {
    const page = await fetch(`${plaza.url}/graphql`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/graphiql');
    const form = await fetch(`${plaza.url}/graphql?query=${encodeURIComponent('{ me { id } }')}`, { headers: { accept: 'text/html' } });
    expect(form.status).toBe(400);
    expect(await form.text()).toMatch(/CSRF/i);
  });
});
