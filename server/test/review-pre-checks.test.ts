import { beforeAll, describe, expect, it, vi } from 'vitest';
import { framingProblem } from '../src/modules/review/pre-checks/frame-policy.js';
import { probeImage } from '../src/modules/review/pre-checks/image-probe.js';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, UPDATE_APP, submitApp } from './helpers/factories.js';
import { startHttpsServer } from './helpers/https-server.js';
import { png } from './helpers/png.js';

const PRE_CHECKS = 'query($id: ID!) { app(id: $id) { revision preChecks { revision status completedAt results { check outcome detail } } } }';
let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let site: Awaited<ReturnType<typeof startHttpsServer>>;

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('checked@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  const platform = plaza.services.config.platformOrigin;
  site = await startHttpsServer((req, res) => {
    const routes: Record<string, () => void> = {
      '/app': () => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>app</h1>'),
      '/app-deny': () => res.writeHead(200, { 'x-frame-options': 'DENY' }).end('no'),
      '/app-csp-other': () => res.writeHead(200, { 'content-security-policy': "default-src 'self'; frame-ancestors 'self' https://other.example" }).end('no'),
      '/app-csp-platform': () => res.writeHead(200, { 'content-security-policy': `frame-ancestors ${platform}`, 'x-frame-options': 'DENY' }).end('yes'),
      '/app-broken': () => res.writeHead(500).end('boom'),
      '/icon-512.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end(png(512, 512)),
      '/icon-256.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end(png(256, 256)),
      '/icon.html': () => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an icon</html>'),
      '/shot-1280.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end(png(1280, 720)),
      // Over 2 MB: the header says PNG, the length says too big for a phone.
      '/shot-huge.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([png(1280, 720), Buffer.alloc(2 * 1024 * 1024)])),
    };
    (routes[req.url!] ?? (() => res.writeHead(404).end()))();
  });
});

async function checksOf(client: GraphQLTestClient, appId: string, revision?: number) {
  return vi.waitFor(
    async () => {
      const { app } = await client.ok<{ app: any }>(PRE_CHECKS, { id: appId });
      if (app.preChecks?.status !== 'DONE' || (revision !== undefined && app.preChecks.revision !== revision)) {
        throw new Error(`pre-checks of ${appId} did not finish: ${JSON.stringify(app.preChecks)}`);
      }
      return Object.fromEntries(app.preChecks.results.map((r: any) => [r.check, [r.outcome, r.detail]]));
    },
    { timeout: 10_000, interval: 100 },
  );
}

describe('review pre-checks', () => {
  it('pass a page that answers over HTTPS and may be framed, with a 512x512 image icon', async () => {
    const app = await submitApp(developer, { appUrl: site.url('/app'), iconUrl: site.url('/icon-512.png') });
    const checks = await checksOf(reviewer, app.id);
    expect(checks).toEqual({
      APP_URL_HTTPS: ['PASS', expect.stringMatching(/^HTTPS 200 in \d+ ms$/)],
      APP_URL_FRAMEABLE: ['PASS', `${plaza.services.config.platformOrigin} may frame the page`],
      ICON_IMAGE: ['PASS', 'PNG image (content type image/png)'],
      ICON_SIZE: ['PASS', '512x512'],
    });
  });

  it('flag X-Frame-Options DENY, a CSP that leaves the platform out, a small icon and a non-image, without blocking the submission', async () => {
    const denied = await submitApp(developer, { appUrl: site.url('/app-deny'), iconUrl: site.url('/icon-256.png') });
    expect(denied.status).toBe('PENDING_REVIEW');
    const deniedChecks = await checksOf(reviewer, denied.id);
    expect(deniedChecks.APP_URL_FRAMEABLE).toEqual(['FAIL', 'X-Frame-Options: DENY forbids framing']);
    expect(deniedChecks.ICON_SIZE).toEqual(['WARN', 'The icon is 256x256; 512x512 is recommended']);

    const other = await submitApp(developer, { appUrl: site.url('/app-csp-other'), iconUrl: site.url('/icon.html') });
    const otherChecks = await checksOf(reviewer, other.id);
    expect(otherChecks.APP_URL_FRAMEABLE[0]).toBe('FAIL');
    expect(otherChecks.APP_URL_FRAMEABLE[1]).toContain('does not include');
    expect(otherChecks.ICON_IMAGE).toEqual(['FAIL', 'The icon is not an image we recognise (content type text/html)']);

    // frame-ancestors naming the platform wins over X-Frame-Options, as in browsers.
    const allowed = await submitApp(developer, { appUrl: site.url('/app-csp-platform'), iconUrl: site.url('/icon-512.png') });
    expect((await checksOf(reviewer, allowed.id)).APP_URL_FRAMEABLE[0]).toBe('PASS');
  });

  it('report an App URL that does not answer, and run again on resubmission', async () => {
    const app = await submitApp(developer, { appUrl: site.url('/app-broken'), iconUrl: site.url('/icon-512.png') });
    expect((await checksOf(reviewer, app.id)).APP_URL_HTTPS).toEqual(['FAIL', 'The App URL does not answer over HTTPS: HTTP 500']);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['BROKEN_IFRAME_URL'] } });
    const { updateApp } = await developer.ok<{ updateApp: any }>(UPDATE_APP, { id: app.id, input: { appUrl: site.url('/app') } });
    expect((await checksOf(developer, app.id, updateApp.revision)).APP_URL_HTTPS[0]).toBe('PASS');
  });

  it('check each screenshot as the icon: one that is not an image, one that does not load and one too large fail, naming which', async () => {
    const shots = ['/shot-1280.png', '/icon.html', '/missing.png', '/shot-huge.png'].map((path) => site.url(path));
    const app = await submitApp(developer, { appUrl: site.url('/app'), iconUrl: site.url('/icon-512.png'), screenshotUrls: shots });
    await checksOf(reviewer, app.id);
    const { app: checked } = await reviewer.ok<{ app: any }>(PRE_CHECKS, { id: app.id });
    const screenshots = checked.preChecks.results.filter((r: any) => r.check === 'SCREENSHOT_IMAGE').map((r: any) => [r.outcome, r.detail]);
    expect(screenshots).toEqual([
      ['PASS', expect.stringMatching(/^Screenshot 1: PNG image, 1280x720, \d+ KB$/)],
      ['FAIL', 'Screenshot 2 is not an image we recognise (content type text/html)'],
      ['FAIL', 'Screenshot 3 could not be loaded: HTTP 404'],
      ['FAIL', 'Screenshot 4 is a PNG image over 2 MB; smaller files load faster on phones'],
    ]);
    // The icon's checks are still there, and the submission waits for review all the same.
    expect(checked.preChecks.results.map((r: any) => r.check).slice(0, 4)).toEqual(['APP_URL_HTTPS', 'APP_URL_FRAMEABLE', 'ICON_IMAGE', 'ICON_SIZE']);
    expect(app.status).toBe('PENDING_REVIEW');
  });

  it('are for the developer and reviewers only', async () => {
    const app = await submitApp(developer, { appUrl: site.url('/app'), iconUrl: site.url('/icon-512.png') });
    await checksOf(reviewer, app.id);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const stranger = await plaza.signIn('curious@elsewhere.test');
    expect((await stranger.ok<{ app: any }>(PRE_CHECKS, { id: app.id })).app.preChecks).toBeNull();
  });
});

describe('frame policy and image probe', () => {
  const page = 'https://apps.example.com/quiz';
  const platform = 'https://plaza.example';
  it.each([
    [{}, undefined],
    [{ 'x-frame-options': 'SAMEORIGIN' }, 'X-Frame-Options: SAMEORIGIN forbids framing by https://plaza.example'],
    [{ 'content-security-policy': "frame-ancestors 'none'" }, "CSP frame-ancestors is 'none': no site may frame the app"],
    [{ 'content-security-policy': 'frame-ancestors https://*.plaza.example' }, expect.stringContaining('does not include')],
    [{ 'content-security-policy': 'frame-ancestors https:' }, undefined],
    [{ 'content-security-policy': 'frame-ancestors *' }, undefined],
    [{ 'content-security-policy': 'frame-ancestors plaza.example' }, undefined],
    [{ 'content-security-policy': 'frame-ancestors https://plaza.example:8443' }, expect.stringContaining('does not include')],
    [{ 'content-security-policy': 'frame-ancestors https://evilplaza.example' }, expect.stringContaining('does not include')],
  ])('%j', (headers, expected) => {
    expect(framingProblem(headers as Record<string, string>, page, platform)).toEqual(expected);
  });

  it('reads sizes from PNG, GIF and SVG and refuses other bytes', () => {
    expect(probeImage(png(64, 32))).toEqual({ format: 'png', width: 64, height: 32 });
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x00, 0x02, 0x00, 0x02])]);
    expect(probeImage(gif)).toEqual({ format: 'gif', width: 512, height: 512 });
    expect(probeImage(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toEqual({ format: 'svg' });
    expect(probeImage(Buffer.from('<html><body>hi</body></html>'))).toBeUndefined();
  });
});
