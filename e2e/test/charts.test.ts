import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17's charts against a real Plaza with real deliveries: one app's receiver answers 200, the other's 500.
const DEVELOPER_EMAIL = 'charts-developer@plaza.test';
const BUYER_EMAIL = 'charts-buyer@plaza.test';
const HEALTHY_APP = 'Steady Hooks';
const FAILING_APP = 'Broken Hooks';
const WAITING_APP = 'Waiting Room';
const PRICE = 10;

const SCREEN = { viewport: { width: 1280, height: 900 } };

let plaza: PlazaProcess;
let browser: Browser | undefined;
const receivers: { close(): Promise<void> }[] = [];
let healthyAppId = '';
let failingAppId = '';

/** Polls until `check` passes: deliveries and their retries finish on Plaza's worker in their own time. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await read();
      if (!check(value)) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
      return value;
    },
    { timeout: timeoutMs, interval: 250 },
  );
}

beforeAll(async () => {
  plaza = await startPlaza();
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const healthy = await startHttpsServer((_request, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  const failing = await startHttpsServer((request, response) =>
    // The app's pages (and icon) load; only its webhook endpoint is broken.
    request.url?.startsWith('/webhooks') ? void response.writeHead(500).end('broken') : void response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
  );
  receivers.push(healthy, failing);

  const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  healthyAppId = await publishApp(developer, reviewer, { name: HEALTHY_APP, appUrl: `${healthy.origin}/`, webhookUrl: `${healthy.origin}/webhooks`, pricePoints: PRICE });
  failingAppId = await publishApp(developer, reviewer, { name: FAILING_APP, appUrl: `${failing.origin}/`, webhookUrl: `${failing.origin}/webhooks` });
  // One submission left waiting, for the admin's review queue.
  await developer.ok(`mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`, {
    input: {
      name: WAITING_APP,
      shortDescription: 'Waits for review in the charts test',
      iconUrl: `${healthy.origin}/assets/icon.png`,
      appUrl: `${healthy.origin}/`,
      category: 'productivity',
      pricing: 'FREE',
      pricePoints: null,
      webhookUrl: null,
    },
  });

  // A purchase of the paid app (one delivery that succeeds) and an install of the free one (one delivery, every attempt 500).
  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "e2e: charts") { points } }`, { userId: buyer.userId });
  await buyer.ok(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { appId } }`, { appId: healthyAppId });
  await buyer.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { appId } }`, { appId: failingAppId });
  // The e2e Plaza retries twice, 200 ms apart (WEBHOOK_RETRY_SCHEDULE): the failing delivery ends FAILED after 3 attempts.
  await eventually(
    () =>
      developer
        .ok<{ webhookDeliveries: { edges: { node: { appId: string; status: string } }[] } }>(`{ webhookDeliveries(first: 10) { edges { node { appId status } } } }`)
        .then(({ webhookDeliveries }) => webhookDeliveries.edges.map(({ node }) => `${node.appId === healthyAppId ? 'healthy' : 'failing'}:${node.status}`).sort()),
    (statuses) => statuses.join() === 'failing:FAILED,healthy:SUCCEEDED',
    'the two deliveries',
  );
});

afterAll(async () => {
  await browser?.close();
  for (const receiver of receivers) await receiver.close();
  await plaza?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS_DIR, name), fullPage: true });

/** The chart's canvas once uPlot has drawn it (its chunk loads on first use): its size on the page. */
async function drawnChartSize(page: Page, scope = page.locator('section.insight').first()): Promise<{ width: number; height: number }> {
  await scope.locator('.chart-canvas[data-chart-state="drawn"] canvas').first().waitFor();
  const box = await scope.locator('.chart-canvas canvas').first().boundingBox();
  return { width: box?.width ?? 0, height: box?.height ?? 0 };
}

const canvasPixels = (page: Page) =>
  page
    .locator('.chart-canvas canvas')
    .first()
    .evaluate((canvas: HTMLCanvasElement) => canvas.toDataURL());

/** The theme switch, as a person uses it: in the account menu when signed in. */
async function chooseTheme(page: Page, theme: 'Light' | 'Dark') {
  const select = page.getByLabel('Theme');
  if (!(await select.isVisible())) await page.locator('.account-button').click();
  await select.selectOption({ label: theme });
  await page.keyboard.press('Escape');
  await page.waitForFunction((name) => document.documentElement.dataset.theme === name, theme.toLowerCase());
}

describe('charts: health at a glance', () => {
  it('draws webhook health, earnings and the platform view from real deliveries, in light and dark theme', async () => {
    const developer = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, SCREEN);

    // The healthy app's page: its one attempt succeeded.
    await developer.goto(`${plaza.origin}/developer/apps/${healthyAppId}`);
    await developer.getByText(/^Last 24 hours: 1 of 1 delivery attempts succeeded \(100%\); latency p50 \d[\d,]* ms, p95 \d[\d,]* ms\.$/).waitFor();
    const appPageChart = await drawnChartSize(developer);
    expect(appPageChart.width).toBeGreaterThan(100);
    expect(appPageChart.height).toBeGreaterThan(100);
    await developer.getByText('Webhook enabled').waitFor();
    await shot(developer, 'charts-app-page.png');

    // The failing app in Webhook Logs: all three attempts failed; the banner says so and leads to its failed deliveries.
    await developer.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(failingAppId)}`);
    await developer.getByText(/^Last 24 hours: 0 of 3 delivery attempts succeeded \(0%\)/).waitFor();
    const banner = developer.getByRole('alert').filter({ hasText: 'Webhook failing' });
    await banner.getByText('3 of 3 attempts in the last 24 hours').waitFor();
    expect((await drawnChartSize(developer)).width).toBeGreaterThan(100);
    // 7 days: the same attempts, a longer axis.
    await developer.getByRole('button', { name: 'Last 7 days' }).click();
    await developer.getByText(/^Last 7 days: 0 of 3 delivery attempts succeeded \(0%\)/).waitFor();
    expect((await drawnChartSize(developer)).width).toBeGreaterThan(100);
    await shot(developer, 'charts-webhook-logs-failing.png');
    await banner.getByRole('link', { name: 'See failed deliveries' }).click();
    await developer.waitForURL((url) => url.searchParams.get('status') === 'FAILED' && url.searchParams.get('appId') === failingAppId);
    await developer.locator('tr', { hasText: 'app.installed' }).getByText('Failed').waitFor();

    // All the developer's apps together, in the table too.
    await developer.goto(`${plaza.origin}/developer/webhooks`);
    await developer.getByText(/^Last 24 hours: 1 of 4 delivery attempts succeeded \(25%\)/).waitFor();
    await developer.getByText('Show as table').click();
    const hours = developer.getByRole('table', { name: 'Last 24 hours: delivery attempts per hour' }).getByRole('row');
    expect(await hours.count()).toBe(25);

    // Theme switch on an open page: the chart is drawn again, in the dark theme's colours.
    const lightPixels = await canvasPixels(developer);
    await chooseTheme(developer, 'Dark');
    await developer.waitForFunction((before) => {
      const canvas = document.querySelector<HTMLCanvasElement>('.chart-canvas canvas');
      return canvas !== null && canvas.toDataURL() !== before;
    }, lightPixels);
    expect((await drawnChartSize(developer)).width).toBeGreaterThan(100);
    await shot(developer, 'charts-webhook-logs-dark.png');

    // My Apps in the dark theme (the preference is saved): one purchase, two installs, the developer's share of 10 points.
    await developer.goto(`${plaza.origin}/developer`);
    await developer.getByText(/^Last 30 days: installs 2, purchases 1, refunds 0; net earnings ₫8,000\.$/).waitFor();
    expect((await drawnChartSize(developer)).width).toBeGreaterThan(100);
    await shot(developer, 'charts-my-apps-dark.png');
    await developer.goto(`${plaza.origin}/developer/apps/${failingAppId}`);
    await developer.getByText(/^Last 24 hours: 0 of 3 delivery attempts succeeded/).waitFor();
    expect((await drawnChartSize(developer)).width).toBeGreaterThan(100);
    await chooseTheme(developer, 'Light');
    await developer.goto(`${plaza.origin}/developer`);
    await developer.getByText(/^Last 30 days: installs 2, purchases 1, refunds 0/).waitFor();
    expect((await drawnChartSize(developer)).width).toBeGreaterThan(100);
    await shot(developer, 'charts-my-apps.png');

    // The admin's view: the last hour's attempts, the waiting submission, the app failing most.
    const admin = await personAt(browser!, plaza.origin, ADMIN_EMAIL, SCREEN);
    await admin.goto(`${plaza.origin}/admin`);
    await admin.getByText('Last hour: 3 of 4 webhook attempts failed (75%).').waitFor();
    expect((await drawnChartSize(admin)).width).toBeGreaterThan(100);
    await admin.getByText('1 waiting, 0 overdue.').waitFor();
    await admin
      .getByRole('table', { name: 'Review queue against the 24-hour promise' })
      .getByRole('row', { name: new RegExp(WAITING_APP) })
      .waitFor();
    const failingRow = admin.getByRole('table', { name: 'Apps whose webhooks fail most, last 24 hours' }).getByRole('row', { name: new RegExp(FAILING_APP) });
    expect(await failingRow.textContent()).toContain('3 of 3');
    await shot(admin, 'charts-admin.png');
    await chooseTheme(admin, 'Dark');
    await admin.reload();
    await admin.getByText('Last hour: 3 of 4 webhook attempts failed (75%).').waitFor();
    expect((await drawnChartSize(admin)).height).toBeGreaterThan(100);
    await shot(admin, 'charts-admin-dark.png');
  });
});
