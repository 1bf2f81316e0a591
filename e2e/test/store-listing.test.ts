import { png } from '../../server/test/helpers/png.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { DESKTOP, launchChromium, personAt, PHONE, visitorAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { PlazaApi } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, "the store and the roles": the richer listing (a long description, screenshots, support and privacy
// pages, what the app receives), entered through the developer's form, checked by the reviewer and shown to a
// visitor on a phone; and the admin's purchases table naming the app.

const DEVELOPER_EMAIL = 'listing.dev@plaza.test';
const BUYER_EMAIL = 'listing.buyer@plaza.test';
const APP_NAME = 'Harbour Tides';
const LONG_DESCRIPTION = 'Tide tables for every harbour on the coast.\n\nAlerts before the water turns, in your language.';

let plaza: PlazaProcess;
let site: Awaited<ReturnType<typeof startHttpsServer>>;
let browser: Browser | undefined;
let appId = '';

beforeAll(async () => {
  plaza = await startPlaza();
  const images: Record<string, Buffer> = { '/icon.png': png(512, 512, 0x80), '/shot-1.png': png(1080, 1920, 0x80), '/shot-2.png': png(1920, 1080, 0x80) };
  site = await startHttpsServer((request, response) => {
    const image = images[request.url ?? ''];
    if (image) response.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' }).end(image);
    else response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Harbour Tides</h1>');
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await plaza?.stop();
});

describe('the richer store listing', () => {
  it('a developer enters the long description, two screenshots and the support and privacy pages; the reviewer sees them and each screenshot’s check', async () => {
    const developer = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await developer.goto(`${plaza.origin}/developer/new`);
    await developer.getByLabel('Name', { exact: true }).fill(APP_NAME);
    await developer.getByLabel('Short description').fill('Tides and alerts for the coast');
    await developer.getByLabel('App URL').fill(`${site.origin}/`);
    await developer.getByLabel('Icon URL').fill(`${site.origin}/icon.png`);
    await developer.getByLabel('Long description (optional)').fill(LONG_DESCRIPTION);
    // A third, plain-http screenshot is refused before sending, naming which one.
    await developer.getByLabel('Screenshots (optional)').fill(`${site.origin}/shot-1.png\n${site.origin}/shot-2.png\nhttp://tides.example/3.png`);
    await developer.getByLabel('Support page (optional)').fill('https://tides.example/help');
    await developer.getByLabel('Privacy policy (optional)').fill('https://tides.example/privacy');
    await developer.getByLabel('Category').selectOption('travel');
    await developer.getByLabel('Webhook URL (optional)').fill('https://hooks.tides.example/plaza');
    await developer.getByLabel('app.installed').uncheck();
    await developer.getByRole('button', { name: 'Submit for review' }).click();
    await developer.getByText('Screenshot 3: Must be an https:// address.').waitFor();
    expect(await developer.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
    await developer.getByLabel('Screenshots (optional)').fill(`${site.origin}/shot-1.png\n${site.origin}/shot-2.png`);
    await developer.getByRole('button', { name: 'Submit for review' }).click();
    await developer.waitForURL(/\/developer\/apps\/[^/]+$/);
    appId = decodeURIComponent(new URL(developer.url()).pathname.split('/').pop()!);
    await developer.context().close();

    const reviewer = await personAt(browser!, plaza.origin, REVIEWER_EMAIL);
    await reviewer.goto(`${plaza.origin}/review/${appId}`);
    await reviewer.getByRole('heading', { name: APP_NAME }).waitFor();
    const facts = reviewer.locator('dl.facts');
    await facts.getByText('Alerts before the water turns', { exact: false }).waitFor();
    expect(await facts.locator('.review-screenshots li').allTextContents()).toEqual([`${site.origin}/shot-1.png`, `${site.origin}/shot-2.png`]);
    await facts.getByText('https://tides.example/help').waitFor();
    await facts.getByText('https://tides.example/privacy').waitFor();
    // One result a screenshot, numbered as the facts list them; the pre-checks run in the background, so reload until they are done.
    const screenshotChecks = reviewer.locator('.pre-check-list li').filter({ hasText: 'Screenshot loads as an image within size' });
    await expect
      .poll(
        async () => {
          if ((await screenshotChecks.count()) === 0) await reviewer.reload();
          return screenshotChecks.allTextContents();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual([expect.stringMatching(/Screenshot 1\b/), expect.stringMatching(/Screenshot 2\b/)]);
    expect(await seriousAccessibilityViolations(reviewer)).toEqual([]);
    await reviewer.context().close();
    const reviewerApi = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    await reviewerApi.ok(`mutation Approve($appId: ID!) { decideReview(input: { appId: $appId, outcome: APPROVED }) { id } }`, { appId });
  });

  it('a visitor on a phone sees the description, a screenshot strip that fits the screen, the links and what the app receives; axe is clean light and dark', async () => {
    expect(appId).not.toBe('');
    const visitor = await visitorAt(browser!, { viewport: PHONE });
    await visitor.goto(`${plaza.origin}/store/${appId}`);
    await visitor.getByRole('heading', { name: APP_NAME, level: 1 }).waitFor();
    const about = visitor.getByRole('region', { name: 'About this app' });
    expect(await about.locator('p').allTextContents()).toEqual(['Tide tables for every harbour on the coast.', 'Alerts before the water turns, in your language.']);

    const strip = visitor.getByRole('region', { name: 'Screenshots' });
    const shots = strip.getByRole('img');
    expect(await shots.evaluateAll((images) => images.map((image) => [image.getAttribute('alt'), image.getAttribute('loading')]))).toEqual([
      [`Screenshot 1 of 2 of ${APP_NAME}`, 'lazy'],
      [`Screenshot 2 of 2 of ${APP_NAME}`, 'lazy'],
    ]);
    await shots.first().evaluate((image: HTMLImageElement) => (image.complete ? undefined : new Promise((resolve) => image.addEventListener('load', resolve, { once: true }))));
    expect(await shots.first().evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(1080);
    // The strip scrolls sideways inside the page; the page itself never does at 390 px.
    const widths = await visitor.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.screen);
    const stripBox = await strip.evaluate((element) => ({ right: element.getBoundingClientRect().right, scrolls: element.scrollWidth > element.clientWidth }));
    expect(stripBox.right).toBeLessThanOrEqual(PHONE.width);
    expect(stripBox.scrolls).toBe(true);

    for (const [name, href] of [
      ['Support', 'https://tides.example/help'],
      ['Privacy policy', 'https://tides.example/privacy'],
    ]) {
      const link = visitor.getByRole('link', { name, exact: true });
      expect([await link.getAttribute('href'), await link.getAttribute('rel')]).toEqual([href, 'noopener noreferrer']);
    }

    const receives = visitor.getByRole('region', { name: 'What this app receives' });
    expect(await receives.locator('code').allTextContents()).toEqual(['token', 'userId', 'locale', 'theme', 'app.purchased', 'app.uninstalled', 'app.refunded']);
    // The event names only: where they go is the developer's.
    expect(await visitor.getByText('hooks.tides.example').count()).toBe(0);
    expect(await seriousAccessibilityViolations(visitor)).toEqual([]);
    await visitor.context().close();

    const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
    await buyer.ok(`mutation { updatePreferences(theme: "dark") { id } }`);
    const dark = await personAt(browser!, plaza.origin, BUYER_EMAIL, { viewport: DESKTOP });
    await dark.goto(`${plaza.origin}/store/${appId}`);
    await dark.getByRole('region', { name: 'What this app receives' }).waitFor();
    expect(await dark.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await seriousAccessibilityViolations(dark)).toEqual([]);
    await dark.context().close();
  });

  it('the admin’s buyer purchases table names the app, a link to its store page, with its id beside it', async () => {
    const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
    await buyer.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { appId } }`, { appId });
    const admin = await personAt(browser!, plaza.origin, ADMIN_EMAIL);
    await admin.goto(`${plaza.origin}/admin`);
    await admin.getByLabel('Buyer’s e-mail').fill(BUYER_EMAIL);
    await admin.getByRole('button', { name: 'Find purchases' }).click();
    const row = admin
      .getByRole('region', { name: `Purchases by ${BUYER_EMAIL}` })
      .getByRole('row')
      .nth(1);
    const link = row.getByRole('link', { name: APP_NAME });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/store/${appId}`);
    expect(await row.locator('small.id-text').textContent()).toBe(appId);
    expect(await seriousAccessibilityViolations(admin)).toEqual([]);
    await link.click();
    await admin.getByRole('heading', { name: APP_NAME, level: 1 }).waitFor();
    await admin.context().close();
  });
});
