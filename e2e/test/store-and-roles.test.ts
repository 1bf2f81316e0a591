import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { chooseLanguage, launchChromium, personAt, visitorAt } from '../support/browser.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, "the store and the roles": findings 12 (the store marks apps the person owns) and 15 (navigation
// follows the role; points appear where they can be spent), and the small finding 14 (a skip link; after
// "Confirm: pay" the keyboard lands on the result).

const DEVELOPER_EMAIL = 'roles.dev@plaza.test';
const BUYER_EMAIL = 'roles.buyer@plaza.test';
const OWNED_APP = 'Owned Notes';
const PAID_APP = 'Paid Atlas';

let plaza: PlazaProcess;
let browser: Browser | undefined;
const ids = { owned: '', paid: '' };

beforeAll(async () => {
  plaza = await startPlaza();
  const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  ids.owned = await publishApp(developer, reviewer, { name: OWNED_APP, appUrl: 'https://owned.example/' });
  ids.paid = await publishApp(developer, reviewer, { name: PAID_APP, appUrl: 'https://atlas.example/', pricePoints: 30 });
  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "e2e: roles") { points } }`, { userId: buyer.userId });
  await buyer.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { appId } }`, { appId: ids.owned });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
const card = (page: Page, name: string) => page.locator('.app-card').filter({ has: page.getByRole('heading', { name }) });

describe('the store', () => {
  it('finding 12: marks the apps the person owns (Owned, and Open to launch it); the others keep their price', async () => {
    const page = await personAt(browser!, plaza.origin, BUYER_EMAIL);
    await card(page, OWNED_APP).getByText('Owned', { exact: true }).waitFor();
    const open = card(page, OWNED_APP).getByRole('link', { name: `Open ${OWNED_APP}` });
    expect(await open.getAttribute('href')).toBe(`/apps/${ids.owned}/open`);
    expect(await card(page, PAID_APP).getByText('Owned', { exact: true }).count()).toBe(0);
    expect(await card(page, PAID_APP).getByText('30 points').count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('finding 12: prices are in points and in đồng (a point is worth 1,000 ₫ by default), written the reader’s way', async () => {
    const page = await personAt(browser!, plaza.origin, 'roles.reader@plaza.test');
    await card(page, PAID_APP).getByText('30 points · ₫30,000', { exact: true }).waitFor();
    await page.goto(`${plaza.origin}/store/${ids.paid}`);
    await page.getByRole('heading', { name: PAID_APP }).waitFor();
    await page.getByText('30 points · ₫30,000', { exact: true }).waitFor();
    await chooseLanguage(page, 'Tiếng Việt');
    // Vietnamese writes the amount before its sign, with dots between thousands (Intl puts a no-break space before ₫).
    await page.getByText('30 điểm · 30.000\u00a0₫', { exact: true }).waitFor();
    await page.goto(plaza.origin);
    await card(page, PAID_APP).getByText('30 điểm · 30.000\u00a0₫', { exact: true }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('navigation by role', () => {
  it('finding 15: a visitor and a buyer see the store and their library, and one way in to the portal', async () => {
    const visitor = await visitorAt(browser!);
    await visitor.goto(plaza.origin);
    await visitor.locator('.app-card').first().waitFor();
    expect(await navLinks(visitor)).toEqual(['Store', 'My Library']);

    const buyer = await personAt(browser!, plaza.origin, BUYER_EMAIL);
    await expect.poll(() => navLinks(buyer)).toEqual(['Store', 'My Library', 'For developers']);
    await buyer.getByText('100 points').waitFor();
  });

  it('finding 15: a developer’s portal is one Developers menu beside the store’s sections, a disclosure a keyboard opens, walks into and leaves with Escape', async () => {
    const developer = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    const menu = developer.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Developers' });
    await menu.waitFor();
    expect(await navLinks(developer)).toEqual(['Store', 'My Library']);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await menu.focus();
    await developer.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await navLinks(developer)).toEqual(['Store', 'My Library', 'My Apps', 'API tokens', 'Webhook Logs', 'GraphiQL']);
    expect(await seriousAccessibilityViolations(developer)).toEqual([]);
    await developer.keyboard.press('Tab');
    expect(await developer.evaluate(() => document.activeElement?.textContent)).toBe('My Apps');
    await developer.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await navLinks(developer)).toEqual(['Store', 'My Library']);
    await menu.click();
    await developer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhook Logs' }).click();
    await developer.getByRole('heading', { name: 'Webhook Logs' }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // A developer's portal has nothing to spend points on: no "0 points" there.
    expect(await developer.locator('.shell-tools .points').count()).toBe(0);
    await developer.goto(plaza.origin);
    await developer.locator('.shell-tools .points').getByText('0 points').waitFor();
  });
});

describe('buying with the keyboard', () => {
  it('finding 14: the first Tab reaches "Skip to content", which moves focus to the page; after Confirm: pay, focus is on the result', async () => {
    const page = await personAt(browser!, plaza.origin, BUYER_EMAIL);
    await page.goto(`${plaza.origin}/store/${ids.paid}`);
    await page.getByRole('heading', { name: PAID_APP }).waitFor();
    const focused = () => page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent?.trim() }));
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ tag: 'A', text: 'Skip to content' });
    // Visible while focused (it sits off screen otherwise).
    const box = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).tag).toBe('MAIN');

    await page.getByRole('button', { name: 'Buy for 30 points' }).click();
    await expect.poll(async () => (await focused()).text).toBe('Confirm: pay 30 points');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).text, { timeout: 15_000 }).toMatch(/^Purchased Paid Atlas for 30 points\. Your balance is now 70 points\./);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('notifications', () => {
  it('finding 15: a refunded buyer is told how many points came back; each notification links to what it is about and is dated as the rest of the app is', async () => {
    const REFUNDED_EMAIL = 'roles.refunded@plaza.test';
    const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
    const refunded = await PlazaApi.signIn(plaza.origin, REFUNDED_EMAIL);
    await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 30, reason: "e2e: refund") { points } }`, { userId: refunded.userId });
    const { purchaseApp } = await refunded.ok<{ purchaseApp: { purchaseId: string } }>(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }`, {
      appId: ids.paid,
    });
    await admin.ok(`mutation Refund($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId, reason: "Charged twice") { status } }`, {
      purchaseId: purchaseApp.purchaseId,
    });

    const page = await personAt(browser!, plaza.origin, REFUNDED_EMAIL);
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
    const panel = page.locator('.bell-panel');
    const notice = panel.getByRole('link', { name: `Your purchase of "${PAID_APP}" was refunded: 30 points are back in your balance. Reason: Charged twice` });
    expect(await notice.getAttribute('href')).toBe(`/store/${ids.paid}`);
    // To the minute, as due dates and decisions are ("Nov 27, 2026, 3:04 PM"), not the log's seconds.
    expect(await panel.locator('time').first().textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await notice.click();
    await page.getByRole('heading', { name: PAID_APP, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Notifications, 0 unread' }).waitFor();

    await chooseLanguage(page, 'Tiếng Việt');
    await page.locator('.bell-button').click();
    await panel.getByRole('link', { name: `Giao dịch mua "${PAID_APP}" của bạn đã được hoàn tiền: 30 điểm đã trở lại số dư của bạn. Lý do: Charged twice` }).waitFor();
    await page.context().close();

    const developer = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await developer.locator('.bell-button').click();
    const approved = developer.locator('.bell-panel').getByRole('link', { name: `"${PAID_APP}" was approved and is listed in the store.` });
    expect(await approved.getAttribute('href')).toBe(`/developer/apps/${ids.paid}`);
    await developer.context().close();
  });
});
