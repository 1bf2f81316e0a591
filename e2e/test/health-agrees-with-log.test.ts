import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, "the log tells why at a glance": findings 4 (health banner, chart and My Apps refresh when a
// recovery or a redelivery finishes; the banner says "Recovered") and 6 (a failing webhook in the danger
// colour with an icon; My Apps has a webhook health column).

const DEVELOPER_EMAIL = 'health.dev@plaza.test';
const BUYER_EMAILS = ['health.buyer1@plaza.test', 'health.buyer2@plaza.test'];
const APPS = { recovered: 'Orbit Sync', redelivered: 'Quill Notes' } as const;

let plaza: PlazaProcess;
let receiver: Awaited<ReturnType<typeof startHttpsServer>> | undefined;
let browser: Browser | undefined;
let developer: PlazaApi;
/** What the receiver's webhook endpoints answer now; the test mends them to 200 when it recovers. */
let webhookAnswer = 500;
const ids: Record<keyof typeof APPS, string> = { recovered: '', redelivered: '' };

const deliveriesOf = async (appId: string) =>
  (
    await developer.ok<{ webhookDeliveries: { edges: { node: { id: string; status: string } }[] } }>(
      `query D($appId: ID!) { webhookDeliveries(filter: { appId: $appId }) { edges { node { id status } } } }`,
      { appId },
    )
  ).webhookDeliveries.edges.map((edge) => edge.node);

beforeAll(async () => {
  plaza = await startPlaza();
  // The apps' pages and icons load; only the webhook endpoints fail until the test mends them.
  receiver = await startHttpsServer((request, response) => {
    if (request.url?.startsWith('/webhooks')) response.writeHead(webhookAnswer).end(webhookAnswer === 200 ? 'ok' : 'broken');
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  for (const key of Object.keys(APPS) as (keyof typeof APPS)[])
    ids[key] = await publishApp(developer, reviewer, { name: APPS[key], appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/webhooks/${key}` });
  // Two installs of each app: two deliveries each, every attempt answered 500 (three attempts: WEBHOOK_RETRY_SCHEDULE is 200ms,200ms here).
  for (const email of BUYER_EMAILS) {
    const buyer = await PlazaApi.signIn(plaza.origin, email);
    for (const appId of Object.values(ids)) await buyer.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { appId } }`, { appId });
  }
  for (const appId of Object.values(ids))
    await vi.waitFor(async () => expect((await deliveriesOf(appId)).map((delivery) => delivery.status)).toEqual(['FAILED', 'FAILED']), { timeout: 60_000, interval: 250 });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await plaza?.stop();
});

/** The colour `cssColor` computes to in the page (the theme's variables resolved), to compare with an element's. */
const computed = (page: Page, cssColor: string) =>
  page.evaluate((color) => {
    const probe = document.createElement('span');
    probe.style.color = color;
    document.body.append(probe);
    const value = getComputedStyle(probe).color;
    probe.remove();
    return value;
  }, cssColor);

const colourOf = (locator: Locator, property: 'color' | 'backgroundColor') => locator.evaluate((element, name) => getComputedStyle(element)[name], property);

const myAppsRow = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
/** The text a person reads in it, spaces as they show. */
const textOf = (locator: Locator) => locator.evaluate((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim());
const chartSummary = (page: Page) => page.locator('.insight .chart-summary').first().textContent();

describe('a failing webhook', () => {
  it('finding 6: My Apps has a webhook column (success rate, a Failing badge in the danger colour with an icon); the app page’s banner is danger-coloured with an icon', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer`);
    const row = myAppsRow(page, APPS.recovered);
    const health = row.getByTestId('webhook-health');
    await expect.poll(() => textOf(health), { timeout: 15_000 }).toBe('Failing 0% delivered');
    const badge = health.getByText('Failing');
    expect(await colourOf(badge, 'backgroundColor')).toBe(await computed(page, 'var(--danger)'));
    expect(await badge.locator('svg').count()).toBe(1);
    expect(await page.getByRole('columnheader', { name: 'Webhooks' }).count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'my-apps-webhook-health.png') });

    await page.goto(`${plaza.origin}/developer/apps/${ids.recovered}`);
    const banner = page.getByRole('alert').filter({ hasText: 'Webhook failing' });
    await banner.waitFor();
    expect(await colourOf(banner.locator('strong'), 'color')).toBe(await computed(page, 'var(--danger)'));
    expect(await banner.locator('strong svg').count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'webhook-failing-banner.png') });
    await page.context().close();
  });
});

describe('after the webhook is mended', () => {
  it('finding 4: a recovery that finishes turns the banner to "Recovered", updates the chart, and My Apps (open in another tab) drops its Failing badge', async () => {
    const logs = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    const myApps = await logs.context().newPage();
    await myApps.goto(`${plaza.origin}/developer`);
    const health = myAppsRow(myApps, APPS.recovered).getByTestId('webhook-health');
    await expect.poll(() => textOf(health), { timeout: 15_000 }).toContain('Failing');

    await logs.goto(`${plaza.origin}/developer/webhooks?appId=${ids.recovered}`);
    await logs.getByRole('alert').filter({ hasText: 'Webhook failing' }).waitFor();
    await expect.poll(() => chartSummary(logs)).toMatch(/^Last 24 hours: 0 of 6 delivery attempts succeeded/);
    webhookAnswer = 200;
    const anHourAgo = await logs.evaluate(() => {
      const at = new Date(Date.now() - 3_600_000);
      at.setMinutes(at.getMinutes() - at.getTimezoneOffset());
      return at.toISOString().slice(0, 16);
    });
    await logs.getByLabel('Recover failed since…').fill(anHourAgo);
    await logs.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await logs.getByText('Sent again: 2 of 2 (2 succeeded).', { exact: false }).waitFor({ timeout: 30_000 });

    // Without a reload: the banner, the chart beside it, and My Apps in the other tab.
    const recovered = logs.getByRole('status').filter({ hasText: 'Webhook recovered' });
    await recovered.waitFor({ timeout: 15_000 });
    expect(await recovered.textContent()).toContain('2 of 8 attempts in the last 24 hours');
    expect(await logs.getByRole('alert').filter({ hasText: 'Webhook failing' }).count()).toBe(0);
    await expect.poll(() => chartSummary(logs), { timeout: 15_000 }).toMatch(/^Last 24 hours: 2 of 8 delivery attempts succeeded \(25%\)/);
    await expect.poll(() => textOf(health), { timeout: 15_000 }).toBe('25% delivered');
    expect(await seriousAccessibilityViolations(logs)).toEqual([]);
    await logs.screenshot({ path: path.join(SCREENSHOTS_DIR, 'recovery-recovered.png'), fullPage: true });
    await logs.context().close();
  });

  it('finding 4: a redelivery that succeeds turns the app page’s banner to "Recovered" and updates its chart, without a reload', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer/apps/${ids.redelivered}`);
    await page.getByRole('alert').filter({ hasText: 'Webhook failing' }).waitFor();
    await expect.poll(() => chartSummary(page)).toMatch(/^Last 24 hours: 0 of 6 delivery attempts succeeded/);

    // Sent again from elsewhere (the CLI, another tab): the page hears of it through the app's live deliveries.
    const [first] = await deliveriesOf(ids.redelivered);
    await developer.ok(`mutation R($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }`, { id: first!.id });
    await page.getByRole('status').filter({ hasText: 'Webhook recovered' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => chartSummary(page), { timeout: 15_000 }).toMatch(/^Last 24 hours: 1 of 7 delivery attempts succeeded/);
    await page.context().close();
  });
});
