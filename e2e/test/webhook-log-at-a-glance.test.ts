import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt, PHONE } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { startFailingReceiver, startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, sendTestWebhook, submitWebhookApp } from '../support/plaza-api.js';
import { startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, "the log tells why at a glance": findings 1 (which app), 2 (the last response), 3 (a delivery
// page that starts with its attempts' timeline) and 11 (the log on a phone).

const DEVELOPER_EMAIL = 'glance.dev@plaza.test';
const APPS = { failing: 'Alpha Hooks', ok: 'Beta Hooks', refused: 'Gamma Hooks' } as const;

let plaza: PlazaProcess;
let failingReceiver: Awaited<ReturnType<typeof startFailingReceiver>> | undefined;
let okReceiver: Awaited<ReturnType<typeof startHttpsServer>> | undefined;
let browser: Browser | undefined;
let developer: PlazaApi;
const deliveries: Record<keyof typeof APPS, string> = { failing: '', ok: '', refused: '' };

/** Waits until the delivery has ended (SUCCEEDED or FAILED, its retries spent: WEBHOOK_RETRY_SCHEDULE is 200ms,200ms in these tests). */
async function settled(deliveryId: string): Promise<void> {
  const statusOf = async () =>
    (await developer.ok<{ webhookDelivery: { status: string } }>(`query D($id: ID!) { webhookDelivery(id: $id) { status } }`, { id: deliveryId })).webhookDelivery.status;
  await vi.waitFor(async () => expect(await statusOf()).toMatch(/^(SUCCEEDED|FAILED)$/), { timeout: 60_000, interval: 200 });
}

beforeAll(async () => {
  plaza = await startPlaza();
  failingReceiver = await startFailingReceiver();
  okReceiver = await startHttpsServer((_request, response) => response.writeHead(200).end('ok'));
  // Nothing listens on this port: every attempt is refused.
  const closedPort = await freePort();
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const failingApp = await submitWebhookApp(developer, APPS.failing, `${failingReceiver.origin}/fail`);
  const okApp = await submitWebhookApp(developer, APPS.ok, `${okReceiver.origin}/ok`);
  const refusedApp = await submitWebhookApp(developer, APPS.refused, `https://localhost:${closedPort}/hook`);
  deliveries.failing = await sendTestWebhook(developer, failingApp);
  deliveries.ok = await sendTestWebhook(developer, okApp);
  deliveries.refused = await sendTestWebhook(developer, refusedApp);
  await Promise.all(Object.values(deliveries).map(settled));
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await failingReceiver?.close();
  await okReceiver?.close();
  await plaza?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS_DIR, name), fullPage: true });

/** The developer's saved preferences, as the account menu's switches save them; pages read them on load. */
const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  developer.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);

describe('Webhook Logs across all apps', () => {
  it('finding 1 and 2: each row names its app (icon and name) and the last response: HTTP status, refused, and its duration', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer/webhooks`);
    const row = (key: keyof typeof APPS) => page.getByTestId(`delivery-${deliveries[key]}`);
    await row('failing').waitFor();

    for (const key of Object.keys(APPS) as (keyof typeof APPS)[]) {
      const app = row(key).getByTestId('delivery-app');
      await expect.poll(() => app.locator('.app-chip-name').textContent()).toBe(APPS[key]);
      // The icon's tile (the test icons do not load: the app's initial stands in).
      expect(await app.locator('.app-icon, .app-icon-fallback').count()).toBe(1);
    }
    const lastResponse = (key: keyof typeof APPS) => row(key).getByTestId('delivery-last-response').textContent();
    await expect.poll(() => lastResponse('failing')).toMatch(/^HTTP 500 · [\d,]+ ms$/);
    await expect.poll(() => lastResponse('ok')).toMatch(/^HTTP 200 · [\d,]+ ms$/);
    await expect.poll(() => lastResponse('refused')).toMatch(/^Refused · [\d,]+ ms$/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'webhook-logs-all-apps.png') });

    // One app chosen: the column would say the same on every row, so it goes.
    await page.getByRole('form', { name: 'Filter deliveries' }).locator('select').first().selectOption({ label: APPS.failing });
    await row('ok').waitFor({ state: 'detached' });
    expect(await row('failing').getByTestId('delivery-app').count()).toBe(0);
    await expect.poll(() => lastResponse('failing')).toMatch(/^HTTP 500 · /);
  });
});

describe('Webhook Logs on a phone', () => {
  it('finding 11: at 390 px the log is a list of cards, status first, nothing scrolled out of sight; axe clean light and dark', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, { viewport: PHONE });
    try {
      for (const theme of ['light', 'dark'] as const) {
        await prefer({ theme, locale: theme === 'dark' ? 'vi' : 'en' });
        await page.goto(`${plaza.origin}/developer/webhooks`);
        await page.waitForFunction((expected) => document.documentElement.dataset.theme === expected, theme);
        const card = page.getByTestId(`delivery-${deliveries.failing}`);
        await card.getByTestId('delivery-app').waitFor();
        const status = await card.getByTestId('delivery-status').boundingBox();
        const app = await card.getByTestId('delivery-app').boundingBox();
        const event = await card.getByText('app.test', { exact: true }).boundingBox();
        // Status first (above the rest of the card), and every part inside the screen.
        expect(status!.y).toBeLessThan(event!.y);
        expect(status!.y).toBeLessThan(app!.y);
        for (const box of [status!, app!, event!]) expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
        const overflow = await page.$$eval('main .table-scroll', (boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth + 1).length);
        expect(overflow).toBe(0);
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
        if (theme === 'dark') await shot(page, 'webhook-logs-phone-dark-vi.png');
      }
    } finally {
      await prefer({ theme: 'light', locale: 'en' });
      await page.context().close();
    }
  });
});

describe('a delivery page', () => {
  it('finding 3: starts with a timeline of attempts, newest first; only the latest is open; shared headers once; a redelivery lands on top with focus', async () => {
    // A test event gets one scheduled attempt; two redeliveries make three.
    for (let i = 0; i < 2; i++) await developer.ok(`mutation R($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }`, { id: deliveries.failing });
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer/webhooks/${deliveries.failing}`);
    const timeline = page.getByRole('list', { name: 'Attempts, newest first' });
    await timeline.waitFor();
    const chips = timeline.getByRole('listitem');
    await expect.poll(() => chips.count()).toBe(3);
    expect(await chips.first().textContent()).toMatch(/^#3 · manual · HTTP 500 · [\d,]+ ms$/);
    expect(await chips.last().textContent()).toMatch(/^#1 · scheduled · HTTP 500 · [\d,]+ ms$/);

    // Attempts below: newest first, the latest open and the others folded.
    const attempts = page.locator('.delivery-attempts > li');
    expect(await attempts.evaluateAll((items) => items.map((item) => item.getAttribute('data-testid')))).toEqual(['attempt-3', 'attempt-2', 'attempt-1']);
    expect(await page.locator('.delivery-attempts details[open]').count()).toBe(1);
    expect(await page.getByTestId('attempt-3').locator('details').getAttribute('open')).not.toBeNull();
    // Headers the same in every attempt are listed once; each attempt lists only what differs.
    expect(await page.locator('main th', { hasText: /^x-platform-delivery$/i }).count()).toBe(1);
    expect(await page.locator('main th', { hasText: /^webhook-id$/ }).count()).toBe(1);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(2_400);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await shot(page, 'delivery-timeline.png');

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => chips.count(), { timeout: 30_000 }).toBe(4);
    await expect.poll(() => chips.first().textContent(), { timeout: 30_000 }).toMatch(/^#4 · manual · HTTP 500 · [\d,]+ ms$/);
    const newest = page.getByTestId('attempt-4');
    expect(await newest.getAttribute('class')).toContain('attempt-new');
    expect(await page.locator('.delivery-attempts details[open]').count()).toBe(1);
    await expect.poll(() => newest.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'delivery-redelivered.png') });
  });
});
