import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseLanguage, launchChromium, personAt } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { PlazaApi } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17, finding 3: a Vietnamese developer (also a reviewer) reads every page in Vietnamese, with
// Vietnamese dates. The seeded names and descriptions are Vietnamese, so any English on a page is Plaza's.
const DEVELOPER_EMAIL = 'nha-phat-trien@plaza.test';
const OTHER_EMAIL = 'nguoi-khac@plaza.test';
const BUYER_EMAIL = 'nguoi-mua@plaza.test';

/** English that was reported on Vietnamese pages, and English shapes of dates and numbers. */
const ENGLISH: RegExp[] = [
  /\bName\b/,
  /\bStatus\b/,
  /\bReview due\b/,
  /\bYour apps\b/,
  /\bOpen\b/,
  /\bActions\b/,
  /\bNext attempt\b/,
  /\bAPP_(PURCHASED|INSTALLED|UNINSTALLED|REFUNDED|TEST)\b/,
  /\bPurchased\b/,
  /\bMust (start with|be an)\b/,
  /\bEnter (a|an) /,
  /\bChoose a category\b/,
  /\b[Pp]roductivity\b/,
  /\bWebhook URL\b/,
  /\bThe App URL\b/,
  /\bNot checked\b/,
  /\bTry again\b/,
  /\bCould not\b/,
  /\bpoints\b/,
  // 11/23/2026, 1:23:37 PM and Nov 23, 2026: the browser's English, not the person's Vietnamese.
  /\b\d{1,2}\/\d{1,2}\/\d{4},/,
  /\b\d{1,2}:\d{2}(:\d{2})?\s?[AP]M\b/,
  /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}\b/,
];
/** dd/mm/yyyy as Intl writes it for vi-VN, after the time: "15:04:05 02/01/2030". */
const VIETNAMESE_DATE = /\b\d{2}:\d{2}(:\d{2})? \d{2}\/\d{2}\/\d{4}\b/;

let plaza: PlazaProcess;
let browser: Browser | undefined;
let page: Page;
const ids = { listed: '', pending: '', othersPending: '', delivery: '' };

const submitQuery = `mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`;
const listing = (name: string, appUrl: string, extra: { pricePoints?: number; webhookUrl?: string } = {}) => ({
  name,
  shortDescription: `${name}: ghi chép hằng ngày cho nhóm`,
  iconUrl: `${appUrl}icon.png`,
  appUrl,
  category: 'productivity',
  pricing: extra.pricePoints ? 'PAID' : 'FREE',
  pricePoints: extra.pricePoints ?? null,
  webhookUrl: extra.webhookUrl ?? null,
});

beforeAll(async () => {
  plaza = await startPlaza();
  // Nothing listens there: the purchase's delivery keeps retrying (a next attempt to show), and the
  // pre-checks find the App URL unreachable.
  const nowhere = `https://localhost:${await freePort()}/`;
  const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  const other = await PlazaApi.signIn(plaza.origin, OTHER_EMAIL);
  const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  await admin.ok(`mutation Grant($userId: ID!) { grantRole(userId: $userId, role: "REVIEWER") { id } }`, { userId: developer.userId });

  ids.listed = (
    await developer.ok<{ submitApp: { id: string } }>(submitQuery, { input: listing('Sổ tay Lan', nowhere, { pricePoints: 1500, webhookUrl: `${nowhere}webhooks` }) })
  ).submitApp.id;
  await reviewer.ok(`mutation Approve($appId: ID!) { decideReview(input: { appId: $appId, outcome: APPROVED }) { id } }`, { appId: ids.listed });
  ids.pending = (await developer.ok<{ submitApp: { id: string } }>(submitQuery, { input: listing('Lịch học', nowhere) })).submitApp.id;
  ids.othersPending = (await other.ok<{ submitApp: { id: string } }>(submitQuery, { input: listing('Bảng chi tiêu', nowhere) })).submitApp.id;

  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 5000, reason: "e2e: tiếng Việt") { points } }`, { userId: buyer.userId });
  await buyer.ok(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { appId } }`, { appId: ids.listed });
  const deliveries = await developer.ok<{ webhookDeliveries: { edges: { node: { id: string } }[] } }>(
    `query Deliveries($appId: ID!) { webhookDeliveries(filter: { appId: $appId }) { edges { node { id } } } }`,
    { appId: ids.listed },
  );
  ids.delivery = deliveries.webhookDeliveries.edges[0]!.node.id;

  browser = await launchChromium();
  // An English browser: the language comes from the person's choice, not from the browser.
  page = await personAt(browser, plaza.origin, DEVELOPER_EMAIL, { locale: 'en-US' });
  // Through the account menu's language switch, as a person would; it is saved for every later page.
  await chooseLanguage(page, 'Tiếng Việt');
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

/**
 * What a person reads on the page: the rendered text of <main> (visually hidden text included, a closed
 * <details> not), every option of its lists, and the names and hints given in attributes.
 */
async function readableText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const main = document.querySelector('main')!;
    const options = [...main.querySelectorAll('option')].map((option) => option.textContent ?? '');
    const attributes = [...main.querySelectorAll('[aria-label], [placeholder], [title], [alt]')].flatMap((element) =>
      ['aria-label', 'placeholder', 'title', 'alt'].map((name) => element.getAttribute(name) ?? ''),
    );
    return [main.innerText, ...options, ...attributes].join('\n');
  });
}

/** Each English pattern found, with the text around it, so a failure says where. */
function englishIn(text: string): string[] {
  return ENGLISH.flatMap((pattern) => {
    const match = pattern.exec(text);
    return match ? [`${pattern}: …${text.slice(Math.max(0, match.index - 40), match.index + 40).replace(/\s+/g, ' ')}…`] : [];
  });
}

async function visit(path: string, ready: (page: Page) => Promise<unknown>): Promise<string> {
  await page.goto(`${plaza.origin}${path}`);
  await page.waitForFunction(() => document.documentElement.lang === 'vi');
  await ready(page);
  // Data arriving after the first paint (counts, live updates) is part of what people read.
  // Never idle within the timeout (a page that keeps asking): the checks below read what is drawn by then.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  return readableText(page);
}

describe('a Vietnamese person reads Plaza in Vietnamese', () => {
  it('My Apps: the table of apps, with the review due date day first', async () => {
    const text = await visit('/developer', (page) => page.locator('main tr', { hasText: 'Lịch học' }).waitFor());
    expect(englishIn(text)).toEqual([]);
    for (const header of ['Tên', 'Trạng thái', 'Hạn duyệt']) expect(text).toContain(header);
    expect(await page.locator('main tr', { hasText: 'Lịch học' }).innerText()).toMatch(VIETNAMESE_DATE);
  });

  it('the submit form: its validation messages and categories', async () => {
    const text = await visit('/developer/new', async (page) => {
      await page.getByLabel('URL ứng dụng').fill('http://lich-hoc.example/');
      await page.locator('main form button[type="submit"]').click();
      await page.locator('main [aria-invalid="true"]').first().waitFor();
    });
    expect(englishIn(text)).toEqual([]);
    expect(text).toContain('Nhập tên.');
    expect(text).toContain('Phải là một địa chỉ https://.');
    expect(text).toContain('Năng suất');
  });

  it('Webhook Logs: event names in the filter, statuses and Vietnamese dates', async () => {
    const text = await visit(`/developer/webhooks?appId=${encodeURIComponent(ids.listed)}`, (page) => page.locator('main .delivery-table tbody tr').first().waitFor());
    expect(englishIn(text)).toEqual([]);
    expect(text).toContain('Đã mua (app.purchased)');
    expect(text).toContain('Lần thử tiếp theo');
    expect(await page.locator('main .delivery-table tbody tr').first().innerText()).toMatch(VIETNAMESE_DATE);
  });

  it('a delivery: its facts and attempts, with Vietnamese dates', async () => {
    const text = await visit(`/developer/webhooks/${ids.delivery}`, (page) => page.locator('main table:visible').first().waitFor());
    expect(englishIn(text)).toEqual([]);
    expect(text).toMatch(VIETNAMESE_DATE);
  });

  it('a review page: the pre-checks, the category and the dates', async () => {
    // The pre-checks run in the background; the page updates when they are done.
    const text = await visit(`/review/${ids.othersPending}`, (page) => page.locator('main .pre-check-list li').first().waitFor({ timeout: 60_000 }));
    expect(englishIn(text)).toEqual([]);
    expect(text).toContain('URL ứng dụng không trả lời qua HTTPS.');
    expect(text).toContain('Năng suất');
    expect(text).toMatch(VIETNAMESE_DATE);
  });

  it('the store and an app page: category names and prices', async () => {
    const store = await visit('/', (page) => page.locator('.app-card').first().waitFor());
    expect(englishIn(store)).toEqual([]);
    expect(store).toContain('Năng suất');
    // Thousands grouped the Vietnamese way: 1.500, not 1,500.
    expect(store).toContain('1.500 điểm');

    const app = await visit(`/store/${ids.listed}`, (page) => page.locator('main h1').first().waitFor());
    expect(englishIn(app)).toEqual([]);
    expect(app).toContain('Năng suất');
  });

  it('the bell: review decisions written in Vietnamese from the facts the server keeps with them', async () => {
    const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
    const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    const { submitApp } = await developer.ok<{ submitApp: { id: string } }>(submitQuery, { input: listing('Ghi chú nhóm', `https://localhost:${await freePort()}/`) });
    await reviewer.ok(
      `mutation Reject($appId: ID!) { decideReview(input: { appId: $appId, outcome: REJECTED, reasons: [INVALID_ICON, OTHER], note: "Biểu tượng bị mờ." }) { id } }`,
      { appId: submitApp.id },
    );
    await visit('/developer', (page) => page.locator('main tr', { hasText: 'Ghi chú nhóm' }).waitFor());
    await page.locator('.bell-button').click();
    const panel = page.locator('.bell-panel');
    await panel.locator('li', { hasText: 'Ghi chú nhóm' }).waitFor();
    const text = await panel.innerText();
    expect(englishIn(text)).toEqual([]);
    expect(text).not.toMatch(/\bwas (approved|rejected)\b/);
    expect(text).toContain('"Ghi chú nhóm" bị từ chối: Biểu tượng không phải ảnh 512×512 hợp lệ; Lý do khác (xem ghi chú). Ghi chú của người duyệt: Biểu tượng bị mờ.');
    expect(text).toContain('"Sổ tay Lan" đã được duyệt và có mặt trong cửa hàng.');
    expect(text).toMatch(VIETNAMESE_DATE);
  });
});
