// Lighthouse accessibility and best-practices scores of the main pages, against a real Plaza with real data.
// Not a test: `pnpm build`, then `pnpm --filter @plaza/e2e lighthouse`; prints a table and each failing audit.
// Plain JavaScript because Node 20 cannot import the TypeScript in e2e/support; it follows plaza-process.ts.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_EMAIL = 'admin@plaza.test';
const REVIEWER_EMAIL = 'reviewer@plaza.test';
const PERSON_EMAIL = 'lighthouse@plaza.test';
/** Aims from issue 17; the script exits 1 when a page misses one, so it can gate a release by hand. */
const AIM = { accessibility: 100, 'best-practices': 95 };
/**
 * LIGHTHOUSE_PAGES=store,store (visitor) measures only those pages; LIGHTHOUSE_PERFORMANCE=1 adds the performance
 * score with its first paints and the bytes each page moved (WEB_DIST_DIR=another build's web/dist compares one).
 */
const ONLY_PAGES = process.env.LIGHTHOUSE_PAGES?.split(',');
const PERFORMANCE = process.env.LIGHTHOUSE_PERFORMANCE === '1';

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startPlaza() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'plaza-lighthouse-data-'));
  chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as the postgres user
  const port = await freePort();
  const { DATABASE_URL: _database, NODE_ENV: _mode, ...env } = process.env;
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'server/dist/main.js')], {
    env: {
      ...env,
      PORT: String(port),
      PLATFORM_ORIGIN: `http://localhost:${port}`,
      DATA_DIR: dataDir,
      PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
      PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 60_000; ;) {
    if (child.exitCode !== null) throw new Error(`Plaza exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Plaza was not ready within 60 s:\n${output}`);
    }
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { origin: `http://localhost:${port}`, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The apps' own host: serves their icon over HTTPS (a throwaway certificate, trusted by key as the tests do), so
 * the store loads real images; nothing else answers there, so deliveries fail and retry as they would.
 */
async function startAppHost() {
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-lighthouse-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  const cert = readFileSync(path.join(dir, 'cert.pem'));
  const key = readFileSync(path.join(dir, 'key.pem'));
  rmSync(dir, { recursive: true, force: true });
  const icon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#2f5bd3"/></svg>';
  const server = createHttpsServer({ cert, key }, (request, response) => {
    if (request.url === '/assets/icon.png') return response.writeHead(200, { 'content-type': 'image/svg+xml' }).end(icon);
    response.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, 'localhost', resolve));
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  return {
    origin: `https://localhost:${server.address().port}/`,
    spkiSha256: createHash('sha256').update(spki).digest('base64'),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Dev sign-in, as e2e/support/plaza-api.ts does; keeps the session cookie for Lighthouse's requests. */
async function signIn(origin, email) {
  const response = await fetch(`${origin}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  if (!response.ok) throw new Error(`dev sign-in of ${email} answered ${response.status}`);
  const { token, user } = await response.json();
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ');
  const ok = async (query, variables = {}) => {
    const answer = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = await answer.json();
    if (body.errors?.length || !body.data) throw new Error(`${email}: ${query.split('(')[0]} failed: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  return { userId: user.id, cookie, ok };
}

/** An approved paid app whose webhook answers 404, bought once: the store, My Apps and a delivery have data. */
async function seed(origin, appHost) {
  const admin = await signIn(origin, ADMIN_EMAIL);
  const reviewer = await signIn(origin, REVIEWER_EMAIL);
  const person = await signIn(origin, PERSON_EMAIL);
  const buyer = await signIn(origin, 'lighthouse-buyer@plaza.test');
  await admin.ok(`mutation Grant($userId: ID!) { grantRole(userId: $userId, role: "ADMIN") { id } }`, { userId: person.userId });
  const submit = (name, pricePoints) =>
    person.ok(`mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`, {
      input: {
        name,
        shortDescription: `${name}, listed for the Lighthouse run`,
        iconUrl: `${appHost}assets/icon.png`,
        appUrl: appHost,
        category: 'productivity',
        pricing: pricePoints ? 'PAID' : 'FREE',
        pricePoints,
        webhookUrl: pricePoints ? `${appHost}webhooks` : null,
      },
    });
  const { submitApp: paid } = await submit('Lighthouse app', 30);
  await reviewer.ok(`mutation Approve($appId: ID!) { decideReview(input: { appId: $appId, outcome: APPROVED }) { id } }`, { appId: paid.id });
  const { submitApp: rejected } = await submit('Rejected app', null);
  await reviewer.ok(`mutation Reject($appId: ID!) { decideReview(input: { appId: $appId, outcome: REJECTED, reasons: [INVALID_ICON] }) { id } }`, { appId: rejected.id });
  await submit('Pending app', null);
  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "lighthouse") { points } }`, { userId: buyer.userId });
  await buyer.ok(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { appId } }`, { appId: paid.id });
  const { webhookDeliveries } = await person.ok(`query Deliveries($appId: ID!) { webhookDeliveries(filter: { appId: $appId }) { edges { node { id } } } }`, { appId: paid.id });
  return { person, appId: paid.id, deliveryId: webhookDeliveries.edges[0].node.id };
}

const plaza = await startPlaza();
const appHost = await startAppHost();
let chrome;
let missed = false;
try {
  const { person, appId, deliveryId } = await seed(plaza.origin, appHost.origin);
  const pages = [
    ['store', '/'],
    ['store (visitor)', '/', { visitor: true }],
    ['My Apps', '/developer'],
    ['Webhook Logs', `/developer/webhooks?appId=${encodeURIComponent(appId)}`],
    ['a delivery', `/developer/webhooks/${encodeURIComponent(deliveryId)}`],
    ['admin view', '/admin'],
  ].filter(([name, , options]) => (ONLY_PAGES ? ONLY_PAGES.includes(name) : !options?.visitor));
  chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    chromeFlags: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--ignore-certificate-errors-spki-list=${appHost.spkiSha256}`,
    ],
  });
  const rows = [];
  const failures = [];
  for (const theme of ['light', 'dark']) {
    await person.ok(`mutation Prefs($theme: String) { updatePreferences(theme: $theme) { id } }`, { theme });
    for (const [name, pagePath, options] of pages) {
      // A visitor's pages are light until they choose otherwise.
      if (options?.visitor && theme === 'dark') continue;
      const { lhr } = await lighthouse(
        `${plaza.origin}${pagePath}`,
        // The session cookie rides on every request; storage is kept so the cookie is not cleared first.
        {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: [...Object.keys(AIM), ...(PERFORMANCE ? ['performance'] : [])],
          disableStorageReset: !options?.visitor,
          extraHeaders: options?.visitor ? {} : { Cookie: person.cookie },
        },
        desktopConfig,
      );
      const scores = Object.fromEntries(Object.keys(AIM).map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)]));
      const row = { page: name, theme, accessibility: scores.accessibility, 'best practices': scores['best-practices'] };
      if (PERFORMANCE) {
        const scripts = lhr.audits['resource-summary']?.details?.items?.find((item) => item.resourceType === 'script');
        Object.assign(row, {
          performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
          'FCP ms': Math.round(lhr.audits['first-contentful-paint'].numericValue),
          'LCP ms': Math.round(lhr.audits['largest-contentful-paint'].numericValue),
          'bytes moved': lhr.audits['total-byte-weight'].numericValue,
          'script bytes moved': scripts?.transferSize,
        });
      }
      rows.push(row);
      for (const [category, aim] of Object.entries(AIM)) {
        if (scores[category] < aim) missed = true;
        // Every audit that cost points is listed, also under a met aim, so the table's figures are explained.
        for (const ref of lhr.categories[category].auditRefs) {
          const audit = lhr.audits[ref.id];
          if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
            const items = (audit.details?.items ?? []).slice(0, 5).map((item) => item.node?.selector ?? item.source?.url ?? item.description ?? JSON.stringify(item).slice(0, 160));
            failures.push(`${name} (${theme}) ${category}: ${audit.id}: ${audit.title}${items.length ? `\n    ${items.join('\n    ')}` : ''}`);
          }
        }
      }
    }
  }
  console.table(rows);
  if (failures.length) console.log(`\nAudits that failed:\n${failures.join('\n')}`);
} finally {
  await chrome?.kill();
  await appHost.close();
  await plaza.stop();
}
process.exit(missed ? 1 : 0);
