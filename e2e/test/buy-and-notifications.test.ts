import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17, findings 5 (buying asks first and says Purchased) and 6 (the notifications popover gets out of the way).
const DEVELOPER_EMAIL = 'developer@plaza.test';
const BUYER_EMAIL = 'buyer@plaza.test';
const PAID_APP = 'Quiz Time';
const REJECTED_APP = 'Chess Club';
const PRICE = 30;

let plaza: PlazaProcess;
let appHost: Awaited<ReturnType<typeof startHttpsServer>> | undefined;
let browser: Browser | undefined;
let developer: PlazaApi;
let buyer: PlazaApi;
let paidAppId: string;

beforeAll(async () => {
  plaza = await startPlaza();
  // The apps' pages and icons: listings need an https App URL that answers.
  appHost = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>App</title><p>An app</p>');
  });
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  paidAppId = await publishApp(developer, reviewer, { name: PAID_APP, appUrl: `${appHost.origin}/`, pricePoints: PRICE });
  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "e2e: buy an app") { points } }`, { userId: buyer.userId });

  // A second decision, a rejection with a long note, so the developer has two notifications to read.
  const { submitApp } = await developer.ok<{ submitApp: { id: string } }>(`mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`, {
    input: {
      name: REJECTED_APP,
      shortDescription: `${REJECTED_APP}, submitted to be rejected in the end-to-end tests`,
      iconUrl: `${appHost.origin}/icon.png`,
      appUrl: `${appHost.origin}/chess`,
      category: 'productivity',
      pricing: 'FREE',
      pricePoints: null,
      webhookUrl: null,
    },
  });
  await reviewer.ok(
    `mutation Reject($appId: ID!) { decideReview(input: { appId: $appId, outcome: REJECTED, reasons: [OTHER], note: "The board does not load on a phone. Please make it fit a narrow screen and resubmit." }) { id } }`,
    {
      appId: submitApp.id,
    },
  );
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await appHost?.close();
  await plaza?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS_DIR, name) });

describe('buying a paid app', () => {
  it('asks to confirm the price and the balance, buys only then, says Purchased without the price, and links My Library', async () => {
    const page = await personAt(browser!, plaza.origin, BUYER_EMAIL);
    await page.goto(`${plaza.origin}/store/${paidAppId}`);
    await page.getByRole('heading', { name: PAID_APP }).waitFor();
    await page.getByRole('button', { name: `Buy for ${PRICE} points` }).click();

    const confirmation = page.getByRole('group');
    await confirmation.getByText(`Buy ${PAID_APP} for ${PRICE} points? Your balance is 100 points; 70 points will remain.`).waitFor();
    await shot(page, 'buy-confirm.png');
    // One click on Buy spent nothing.
    const before = await buyer.ok<{ myPurchases: { edges: unknown[] }; myPointsBalance: { points: number } }>(
      `{ myPurchases { edges { node { purchaseId } } } myPointsBalance { points } }`,
    );
    expect(before).toEqual({ myPurchases: { edges: [] }, myPointsBalance: { points: 100 } });

    await confirmation.getByRole('button', { name: `Confirm: pay ${PRICE} points` }).click();
    const result = page.getByRole('status').filter({ hasText: 'Purchased' });
    await result.getByText(`Purchased ${PAID_APP} for ${PRICE} points. Your balance is now 70 points.`).waitFor();
    expect(await result.textContent()).not.toContain('Installed');
    // The price is no longer offered once the app is owned.
    expect(await page.locator('.store-app').getByText(`${PRICE} points`, { exact: true }).count()).toBe(0);
    await page.locator('.store-app').getByText('In your library', { exact: true }).waitFor();
    await shot(page, 'buy-purchased.png');

    const after = await buyer.ok<{ myPurchases: { edges: { node: { pricePoints: number } }[] }; myPointsBalance: { points: number } }>(
      `{ myPurchases { edges { node { pricePoints } } } myPointsBalance { points } }`,
    );
    expect(after).toEqual({ myPurchases: { edges: [{ node: { pricePoints: PRICE } }] }, myPointsBalance: { points: 70 } });

    await result.getByRole('link', { name: 'Go to My Library' }).click();
    await page.waitForURL(`${plaza.origin}/library`);
    await page.getByText(PAID_APP).first().waitFor();

    // Uninstalled, the bought app comes back at no charge: no second purchase is offered (it would be refused).
    await buyer.ok(`mutation Uninstall($appId: ID!) { uninstallApp(appId: $appId) { id } }`, { appId: paidAppId });
    await page.goto(`${plaza.origin}/store/${paidAppId}`);
    await page.getByText('You bought this app before: it goes back in your library at no charge.').waitFor();
    expect(await page.getByRole('button', { name: `Buy for ${PRICE} points` }).count()).toBe(0);
    await page.getByRole('button', { name: 'Install again, no charge' }).click();
    await page.getByRole('status').getByText('Installed. Find it in My Library.').waitFor();
    const reinstalled = await buyer.ok<{ myPurchases: { edges: { node: { kind: string; pricePoints: number } }[] }; myPointsBalance: { points: number } }>(
      `{ myPurchases { edges { node { kind pricePoints } } } myPointsBalance { points } }`,
    );
    expect(reinstalled).toEqual({
      myPurchases: { edges: [{ node: { kind: 'REINSTALL', pricePoints: 0 } }, { node: { kind: 'PURCHASE', pricePoints: PRICE } }] },
      myPointsBalance: { points: 70 },
    });
  });
});

describe('the notifications popover', () => {
  it('closes on Escape, on a click outside it and when a notification is chosen, and does not cover the page after', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer`);
    await page.getByRole('heading', { name: 'My Apps' }).waitFor();
    const bell = page.getByRole('button', { name: 'Notifications, 2 unread' });
    const panel = page.locator('.bell-panel');
    const submitApp = page.getByRole('link', { name: 'Submit App' });

    await bell.click();
    const approved = panel.getByRole('link', { name: new RegExp(`${PAID_APP}.*approved`) });
    await approved.waitFor();
    // Each notification reads as a list entry, not a bold underlined paragraph.
    const style = await approved.evaluate((link) => ({
      weight: Number(getComputedStyle(link).fontWeight),
      underline: getComputedStyle(link).textDecorationLine.includes('underline'),
    }));
    expect(style).toEqual({ weight: 400, underline: false });
    await shot(page, 'notifications-open.png');

    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    expect(await bell.getAttribute('aria-expanded')).toBe('false');
    expect(await bell.evaluate((button) => button === document.activeElement)).toBe(true);
    // Nothing covers the form under where the popover was: the link there takes a click.
    await submitApp.click({ trial: true, timeout: 5_000 });

    await bell.click();
    await panel.waitFor({ state: 'visible' });
    await page.getByRole('heading', { name: 'My Apps' }).click();
    await panel.waitFor({ state: 'hidden' });
    await submitApp.click({ trial: true, timeout: 5_000 });

    await bell.click();
    await approved.click();
    await page.waitForURL(`${plaza.origin}/developer/apps/${paidAppId}`);
    await panel.waitFor({ state: 'hidden' });
    // Choosing it read it.
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
    await shot(page, 'notifications-chosen.png');
  });
});
