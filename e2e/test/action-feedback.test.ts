import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17, findings 2 (the launcher in the person's language and theme, a spinner until APP_READY),
// 8 (feedback after saving, resubmitting, deciding and crediting; the approved-app edit warning) and
// 9 (one validation message per problem).

const DEVELOPER_EMAIL = 'developer@plaza.test';
const USER_EMAIL = 'user@plaza.test';
const SLOW_APP = 'Slow app';
const FORM_APP = 'Quiz Time';
const APP_PAGE_TEXT = 'This app answers APP_READY when the test says so.';

let plaza: PlazaProcess;
let appServer: Awaited<ReturnType<typeof startHttpsServer>> | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  plaza = await startPlaza();
  // A real app page that loads at once but is slow to be ready: it answers APP_READY only when told to.
  appServer = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>${SLOW_APP}</title><p>${APP_PAGE_TEXT}</p>`);
  });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await appServer?.close();
  await plaza?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS_DIR, name) });

describe('the launcher for a Vietnamese user in the dark theme', () => {
  it('speaks Vietnamese, is dark, and shows a spinner over the app until it answers APP_READY', async () => {
    const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
    const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    const user = await PlazaApi.signIn(plaza.origin, USER_EMAIL);
    const appId = await publishApp(developer, reviewer, { name: SLOW_APP, appUrl: `${appServer!.origin}/` });
    await user.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { appId } }`, { appId });
    const page = await personAt(browser!, plaza.origin, USER_EMAIL);
    // The account's saved preferences, as the shell's switches save them; the launcher URL names none.
    await user.ok(`mutation Prefer { updatePreferences(locale: "vi", theme: "dark") { id } }`);

    await page.goto(`${plaza.origin}/apps/${appId}/open`);
    await page.frameLocator(`iframe[title="${SLOW_APP}"]`).getByText(APP_PAGE_TEXT).waitFor();
    await page.getByRole('status').getByText(`Đang chờ ${SLOW_APP} phản hồi…`).waitFor();
    await page.getByRole('link', { name: '← Quay lại Plaza' }).waitFor();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await page.locator('html').getAttribute('lang')).toBe('vi');
    expect(await page.locator('.launcher-bar').evaluate((bar) => getComputedStyle(bar).backgroundColor)).toBe('rgb(27, 33, 48)');

    // The loaded page stays covered, in the dark page colour, with a spinner, until the app is ready.
    const cover = page.locator('.launcher-waiting');
    expect(await cover.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(17, 24, 39)');
    expect(await cover.locator('.launcher-spinner').isVisible()).toBe(true);
    const frameBox = await page.locator('iframe.launcher-frame').boundingBox();
    expect(await cover.boundingBox()).toEqual(frameBox);
    await shot(page, 'launcher-waiting-vi-dark.png');

    const appFrame = page.frames().find((frame) => frame.url().startsWith(appServer!.origin));
    await appFrame!.evaluate((parentOrigin) => window.parent.postMessage({ type: 'APP_READY' }, parentOrigin), plaza.origin);
    await page.getByRole('status').getByText(`${SLOW_APP} đã mở.`).waitFor();
    await cover.waitFor({ state: 'detached' });
  });
});

describe('feedback after actions, and one message per problem', () => {
  it('says what saving, resubmitting, a review decision and a credit did; warns before editing an approved app', async () => {
    const developer = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    const reviewer = await personAt(browser!, plaza.origin, REVIEWER_EMAIL);
    const admin = await personAt(browser!, plaza.origin, ADMIN_EMAIL);
    const reviewerApi = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);

    // Finding 9: an http App URL gets one message, not a live hint and the submit's message at once.
    await developer.goto(`${plaza.origin}/developer/new`);
    await developer.getByLabel('Name', { exact: true }).fill(FORM_APP);
    await developer.getByLabel('Short description').fill('Daily trivia for curious minds');
    await developer.getByLabel('App URL').fill('http://example.com/app');
    await developer.getByLabel('Icon URL').fill(`${appServer!.origin}/icon.png`);
    await developer.getByLabel('Category').selectOption('games');
    await developer.getByRole('button', { name: 'Submit for review' }).click();
    const appUrlField = developer.locator('.field').filter({ has: developer.getByLabel('App URL') });
    await appUrlField.locator('.field-problem').waitFor();
    expect(await appUrlField.locator('.field-problem, .hint.warning').allTextContents()).toEqual(['Must be an https:// address.']);
    await shot(developer, 'submit-one-message.png');

    await developer.getByLabel('App URL').fill(`${appServer!.origin}/quiz`);
    await developer.getByRole('button', { name: 'Submit for review' }).click();
    await developer.waitForURL(/\/developer\/apps\/app_/);
    const appId = decodeURIComponent(developer.url().split('/').pop()!);

    // A rejected app is resubmitted: the developer is told it went back to review, and by when.
    await reviewerApi.ok(`mutation Reject($appId: ID!) { decideReview(input: { appId: $appId, outcome: REJECTED, reasons: [INVALID_ICON] }) { id } }`, { appId });
    await developer.reload();
    await developer.getByRole('button', { name: 'Edit and resubmit' }).click();
    await developer.getByLabel('Short description').fill('Daily trivia for curious minds, with a better icon');
    await developer.getByRole('button', { name: 'Save and resubmit' }).click();
    const saved = developer.getByRole('status').filter({ hasText: 'Changes saved' });
    await saved.waitFor();
    expect(await saved.textContent()).toMatch(/^Changes saved and resubmitted for review, due by .+\.$/);

    // The reviewer approves through the review page and is told so on the queue they land on.
    await reviewer.goto(`${plaza.origin}/review/${appId}`);
    await reviewer.getByLabel('Approve', { exact: true }).check();
    await reviewer.getByRole('button', { name: 'Approve app' }).click();
    await reviewer.waitForURL(`${plaza.origin}/review`);
    await reviewer.getByRole('status').getByText(`You approved ${FORM_APP}: it is in the store now, and its developer has been told.`).waitFor();
    await shot(reviewer, 'review-decided.png');

    // Editing the approved app warns first, and saving a listing change says it went back to review.
    await developer.reload();
    await developer.getByRole('button', { name: 'Edit', exact: true }).click();
    await developer.getByRole('note').getByText('This app is approved. Changing its listing', { exact: false }).waitFor();
    await developer.getByLabel('Short description').fill('Daily trivia for curious minds, now with teams');
    await developer.getByRole('button', { name: 'Save changes' }).click();
    await saved.waitFor();
    expect(await saved.textContent()).toMatch(/^Changes saved and sent to review, due by .+\. The store shows the approved version until then\.$/);
    await developer.locator('.page-head .badge').filter({ hasText: 'Pending review' }).waitFor();
    // The form is gone: the keyboard lands on the app's actions, next to the news, not on the page's top.
    expect(await developer.getByRole('button', { name: 'Edit', exact: true }).evaluate((button) => button === document.activeElement)).toBe(true);
    await shot(developer, 'edit-approved-saved.png');

    // Crediting: the live region is there before the credit, so the confirmation is announced in it.
    await PlazaApi.signIn(plaza.origin, USER_EMAIL);
    await admin.goto(`${plaza.origin}/admin`);
    const credit = admin.getByRole('region', { name: 'Credit points' });
    await credit.getByLabel('User’s e-mail').fill(USER_EMAIL);
    await credit.getByLabel('Points').fill('25');
    await credit.getByLabel('Reason').fill('Welcome gift');
    await credit.getByRole('button', { name: 'Continue' }).click();
    const liveRegion = credit.locator('[aria-live="polite"]');
    expect(await liveRegion.count()).toBe(1);
    expect(await liveRegion.textContent()).toBe('');
    await credit.getByRole('button', { name: 'Confirm credit' }).click();
    await liveRegion.getByRole('status').getByText(`Credited 25 points to ${USER_EMAIL}.`, { exact: false }).waitFor();
  });
});
