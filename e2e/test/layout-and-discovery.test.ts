import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseLanguage, launchChromium, personAt, PHONE, signInThroughPage, visitorAt } from '../support/browser.js';
import { startFailingReceiver } from '../support/https-servers.js';
import { clipped, wrapped } from '../support/layout.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp, sendTestWebhook, submitWebhookApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17, findings 4 and 10: data pages get the width they need, the header is one row on a laptop and
// small on a phone, and the store is a store: browsable signed out, with the facts a buyer looks for.

const DEVELOPER_EMAIL = 'nguyen.dev@plaza.test';
const PAID_APP = 'Quiz Time';

let plaza: PlazaProcess;
let receiver: Awaited<ReturnType<typeof startFailingReceiver>> | undefined;
let browser: Browser | undefined;
let developer: PlazaApi;
let reviewer: PlazaApi;

beforeAll(async () => {
  plaza = await startPlaza();
  // A receiver that always fails, so deliveries collect attempts (request headers) and end FAILED.
  receiver = await startFailingReceiver();
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await plaza?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS_DIR, name), fullPage: true });

describe('the store, signed out', () => {
  it('is browsable: the list, an app page with its developer, category and a way back, and sign-in to buy', async () => {
    const visitor = await visitorAt(browser!);
    await visitor.goto(plaza.origin);
    await visitor.getByRole('heading', { name: 'Store' }).waitFor();
    // Before any app is listed and before any search, the store does not claim that a search found nothing.
    await visitor.getByText('No apps are listed in the store yet.').waitFor();
    expect(await visitor.getByText('No apps match.').count()).toBe(0);

    const appId = await publishApp(developer, reviewer, { name: PAID_APP, appUrl: 'https://quiz.example/', pricePoints: 50 });
    await visitor.reload();
    await visitor.getByRole('link', { name: PAID_APP }).click();
    await visitor.getByRole('heading', { name: PAID_APP }).waitFor();
    expect(new URL(visitor.url()).pathname).toBe(`/store/${appId}`);
    await visitor.getByText('By nguyen.dev').waitFor();
    expect(await visitor.getByRole('link', { name: 'Productivity' }).getAttribute('href')).toBe('/?category=productivity');
    // A visitor is offered a sign-in, never a buy button that would fail.
    await visitor.getByRole('link', { name: 'Sign in to buy' }).waitFor();
    expect(await visitor.getByRole('button', { name: /Buy for/ }).count()).toBe(0);
    await shot(visitor, 'layout-store-app-signed-out.png');

    await visitor.getByRole('link', { name: '← Back to the store' }).click();
    await visitor.getByRole('heading', { name: 'Store' }).waitFor();
    expect(new URL(visitor.url()).pathname).toBe('/');
    await visitor.getByRole('link', { name: PAID_APP }).waitFor();

    // A search that finds nothing still says so.
    await visitor.getByRole('searchbox', { name: 'Search apps' }).fill('no such app anywhere');
    await visitor.getByRole('button', { name: 'Search apps' }).click();
    await visitor.getByText('No apps match.').waitFor();

    // The sign-in form is on the store page itself, and signing in keeps the visitor on the store.
    await signInThroughPage(visitor, plaza.origin, 'buyer@plaza.test');
    await visitor.getByRole('link', { name: PAID_APP }).waitFor();
  });
});

describe('the header', () => {
  it('is one row at 1280 px for an admin, in English and Vietnamese, and at most a fifth of a phone screen', async () => {
    const admin = await personAt(browser!, plaza.origin, ADMIN_EMAIL);
    await admin.getByRole('link', { name: 'Admin' }).waitFor();
    for (const language of ['English', 'Tiếng Việt'] as const) {
      if (language === 'Tiếng Việt') await chooseLanguage(admin, language);
      // One row: the brand, the sections and the tools all share a horizontal band.
      const rows = await admin.$$eval('.shell-header > *', (parts) => {
        const boxes = parts.map((part) => part.getBoundingClientRect());
        return Math.max(...boxes.map((box) => box.top)) < Math.min(...boxes.map((box) => box.bottom)) ? 1 : 2;
      });
      // The row's own sections: the Developers menu's closed list is not laid out (its items would count as a row at 0).
      const navRows = await admin.$$eval(
        '.top-nav li',
        (items) => new Set(items.filter((item) => !item.closest('.developers-menu-list')).map((item) => Math.round(item.getBoundingClientRect().top))).size,
      );
      await shot(admin, `layout-header-1280-${language === 'English' ? 'en' : 'vi'}.png`);
      expect({ language, rows, navRows }).toEqual({ language, rows: 1, navRows: 1 });
    }
    await chooseLanguage(admin, 'English');

    const phone = await personAt(browser!, plaza.origin, 'phone.buyer@plaza.test', { viewport: PHONE });
    const header = await phone.$eval('.shell-header', (element) => element.getBoundingClientRect().height);
    expect(header).toBeLessThanOrEqual(PHONE.height / 5);
    // Nothing pushes the page sideways on a phone; the sections scroll within their own row.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(phone, 'layout-header-phone.png');
  });
});

describe('Webhook Logs and a delivery', () => {
  it('show every column, id and badge whole at 1280 px in both languages, and scroll sideways on a phone', async () => {
    const appId = await submitWebhookApp(developer, 'Hook Lab', `${receiver!.origin}/fail`);
    for (let i = 0; i < 3; i++) await sendTestWebhook(developer, appId);
    const logsPath = `/developer/webhooks?appId=${encodeURIComponent(appId)}`;

    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}${logsPath}`);
    await page.locator('.delivery-table tbody tr').nth(2).waitFor();
    // At least one attempt each, so the attempt count and the badge have settled into their widest text.
    await page.waitForFunction(() => [...document.querySelectorAll('.delivery-table tbody tr td.delivery-attempt-count')].every((cell) => Number(cell.textContent) >= 1));
    for (const language of ['English', 'Tiếng Việt'] as const) {
      if (language === 'Tiếng Việt') await chooseLanguage(page, language);
      expect({ language, clipped: await clipped(page, '.delivery-table th, .delivery-table td') }).toEqual({ language, clipped: [] });
      expect({ language, wrapped: await wrapped(page, '.delivery-table th, .delivery-table td.mono, .delivery-table .badge') }).toEqual({ language, wrapped: [] });
      // The whole table fits the page at 1280 px: nothing hides behind a horizontal scroll.
      const fits = await page.$eval('.table-scroll', (region) => region.scrollWidth <= region.clientWidth);
      expect({ language, fits }).toEqual({ language, fits: true });
    }
    await shot(page, 'layout-webhook-logs-1280-vi.png');

    await page.locator('.delivery-table tbody tr a').first().click();
    await page.locator('.header-table th').first().waitFor();
    // Header names ("x-platform-signature") stay whole words on one line.
    expect(await wrapped(page, '.header-table th')).toEqual([]);
    expect(await clipped(page, '.header-table th')).toEqual([]);
    await shot(page, 'layout-delivery-1280-vi.png');
    await chooseLanguage(page, 'English');

    const phone = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, { viewport: PHONE });
    await phone.goto(`${plaza.origin}${logsPath}`);
    await phone.locator('.delivery-table tbody tr').nth(2).waitFor();
    expect(await clipped(phone, '.delivery-table th, .delivery-table td')).toEqual([]);
    expect(await wrapped(phone, '.delivery-table td.mono, .delivery-table .badge')).toEqual([]);
    // On a phone the rows are cards (issue 27, finding 11; webhook-log-at-a-glance.test.ts): nothing to scroll sideways to, in the log or the page.
    const region = await phone.$eval('.table-scroll', (element) => ({ scrolls: element.scrollWidth > element.clientWidth }));
    expect(region).toEqual({ scrolls: false });
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(phone, 'layout-webhook-logs-phone.png');
  });
});
