import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, the reviewer's and the admin's side: finding 13 (a review starts with no outcome chosen; the queue
// and the review page say who the developer is and show categories in words) and the small ones (admins find
// a purchase by the buyer's e-mail; admin inputs sized for their content).

const DEVELOPER_EMAIL = 'reviewed.dev@plaza.test';
const PENDING_APP = 'Spelling Bee';
const APPROVED_APP = 'Word Garden';
const REJECTED_APP = 'Number Maze';
const BUYER_EMAIL = 'refund.me@plaza.test';

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
let reviewerApi: PlazaApi;
const ids = { pending: '', approved: '', rejected: '', purchase: '', install: '' };

const submitQuery = `mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`;
const submitInput = (name: string, category: string) => ({
  name,
  shortDescription: `${name}, sent for review in the end-to-end tests`,
  iconUrl: 'https://review.example/assets/icon.png',
  appUrl: 'https://review.example/',
  category,
  pricing: 'FREE',
  pricePoints: null,
  webhookUrl: null,
});

beforeAll(async () => {
  plaza = await startPlaza();
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  reviewerApi = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  // The developer's record: one app approved, one rejected, before the one waiting for review.
  ids.approved = await publishApp(developer, reviewerApi, { name: APPROVED_APP, appUrl: 'https://garden.example/' });
  ids.rejected = (await developer.ok<{ submitApp: { id: string } }>(submitQuery, { input: submitInput(REJECTED_APP, 'games') })).submitApp.id;
  await reviewerApi.ok(`mutation Reject($appId: ID!) { decideReview(input: { appId: $appId, outcome: REJECTED, reasons: [INVALID_ICON] }) { id } }`, { appId: ids.rejected });
  // A buyer who bought one app and installed another: the purchase an admin is asked to refund.
  const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  // Another developer's app, so the reviewed developer's record stays two apps.
  const seller = await PlazaApi.signIn(plaza.origin, 'seller@plaza.test');
  const paid = await publishApp(seller, reviewerApi, { name: 'Paid Puzzles', appUrl: 'https://puzzles.example/', pricePoints: 20 });
  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 50, reason: "e2e: refund") { points } }`, { userId: buyer.userId });
  ids.purchase = (
    await buyer.ok<{ purchaseApp: { purchaseId: string } }>(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }`, { appId: paid })
  ).purchaseApp.purchaseId;
  ids.install = (
    await buyer.ok<{ installApp: { purchaseId: string } }>(`mutation Install($appId: ID!) { installApp(appId: $appId) { purchaseId } }`, { appId: ids.approved })
  ).installApp.purchaseId;
  ids.pending = (await developer.ok<{ submitApp: { id: string } }>(submitQuery, { input: submitInput(PENDING_APP, 'education') })).submitApp.id;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

/** Every decideReview the page sends, counted as the browser sends it. */
function countDecisions(page: Page): () => number {
  let sent = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && (request.postData() ?? '').includes('decideReview')) sent += 1;
  });
  return () => sent;
}

const statusOf = async (appId: string) => (await developer.ok<{ app: { status: string } }>(`query App($appId: ID!) { app(id: $appId) { status } }`, { appId })).app.status;

describe('a review decision', () => {
  it('finding 13: starts with no outcome chosen; sending it so says which field is missing and sends nothing', async () => {
    const page = await personAt(browser!, plaza.origin, REVIEWER_EMAIL);
    const sent = countDecisions(page);
    await page.goto(`${plaza.origin}/review/${ids.pending}`);
    const outcome = page.getByRole('group', { name: 'Outcome' });
    await outcome.waitFor();
    expect(await outcome.getByRole('radio').count()).toBe(2);
    expect(await outcome.getByRole('radio', { checked: true }).count()).toBe(0);

    await page.locator('form.decision-form button[type="submit"]').click();
    const problem = outcome.getByText('Choose Approve or Reject.', { exact: true });
    await problem.waitFor();
    expect(await outcome.getAttribute('aria-invalid')).toBe('true');
    expect(await outcome.getAttribute('aria-describedby')).toBe(await problem.getAttribute('id'));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // Once the reviewer chooses, the message goes and the button says what it will do.
    await outcome.getByRole('radio', { name: 'Reject' }).check();
    await page.getByRole('button', { name: 'Reject app' }).waitFor();
    expect(await problem.count()).toBe(0);
    expect(sent()).toBe(0);
    expect(await statusOf(ids.pending)).toBe('PENDING_REVIEW');
    await page.context().close();
  });
});

/** The reviewer's saved preferences, as the theme and language switches save them; pages read them on load. */
const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  reviewerApi.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);

describe('who the developer is', () => {
  it('finding 13: the queue and the review page name the developer, their other apps with states and their decisions, and the category in words', async () => {
    const page = await personAt(browser!, plaza.origin, REVIEWER_EMAIL);
    const looks = [
      { theme: 'light', locale: 'en', category: 'Education', line: `By reviewed.dev · Other apps: 2 · Approved: 1 · Rejected: 1`, approved: 'Approved', rejected: 'Rejected' },
      {
        theme: 'dark',
        locale: 'vi',
        category: 'Giáo dục',
        line: `Của reviewed.dev · Ứng dụng khác: 2 · Đã duyệt: 1 · Bị từ chối: 1`,
        approved: 'Đã duyệt',
        rejected: 'Bị từ chối',
      },
    ] as const;
    try {
      for (const look of looks) {
        await prefer(look);
        await page.goto(`${plaza.origin}/review`);
        const entry = page.locator('.review-entry').filter({ has: page.getByRole('link', { name: PENDING_APP }) });
        await entry.getByText(look.line, { exact: true }).waitFor();
        expect(await entry.textContent()).toContain(`${look.category} ·`);
        expect(await entry.textContent()).not.toContain('education');
        expect(await seriousAccessibilityViolations(page), `queue ${look.theme} ${look.locale}`).toEqual([]);

        await page.goto(`${plaza.origin}/review/${ids.pending}`);
        const record = page.locator('section').filter({ has: page.getByRole('heading', { name: look.locale === 'en' ? 'Developer' : 'Nhà phát triển', exact: true }) });
        await record.getByText(`reviewed.dev (${DEVELOPER_EMAIL})`, { exact: true }).waitFor();
        await record.getByText(look.line.split(' · ').slice(2).join(' · '), { exact: true }).waitFor();
        // Newest first, each with its state in words.
        expect((await record.locator('li').allTextContents()).map((text) => text.trim())).toEqual([`${REJECTED_APP} ${look.rejected}`, `${APPROVED_APP} ${look.approved}`]);
        expect(await record.getByRole('link', { name: APPROVED_APP }).getAttribute('href')).toBe(`/review/${ids.approved}`);
        await page.locator('main').getByText(look.category, { exact: true }).waitFor();
        expect(await seriousAccessibilityViolations(page), `review page ${look.theme} ${look.locale}`).toEqual([]);
      }
    } finally {
      await prefer({ theme: 'light', locale: 'en' });
      await page.context().close();
    }
  });
});

describe('the admin view', () => {
  it('small ones: an admin finds a purchase by the buyer’s e-mail (any case) and refunds it from there; a malformed address is named', async () => {
    const page = await personAt(browser!, plaza.origin, ADMIN_EMAIL);
    await page.goto(`${plaza.origin}/admin`);
    const refund = page.getByRole('region', { name: 'Refund a purchase' });
    const email = refund.getByLabel('Buyer’s e-mail');

    await email.fill('refund.me');
    await refund.getByRole('button', { name: 'Find purchases' }).click();
    await refund.getByText('email must be one e-mail address, such as ana@example.com').waitFor();
    expect(await email.getAttribute('aria-invalid')).toBe('true');

    await email.fill('Refund.Me@PLAZA.test');
    await refund.getByRole('button', { name: 'Find purchases' }).click();
    const found = refund.getByRole('region', { name: 'Purchases by Refund.Me@PLAZA.test' });
    await found.waitFor();
    // Newest first: the free install (nothing to refund), then the purchase.
    const rows = await found.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent)));
    expect(rows).toEqual([
      // The app by its name, a link to its store page, with its id beside it.
      [ids.install, `${APPROVED_APP} ${ids.approved}`, 'Free install', '0', 'Completed'],
      [ids.purchase, expect.any(String), 'Purchase', '20', 'Completed'],
    ]);
    expect(await found.getByRole('button', { name: `Refund ${ids.install}…` }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await found.getByRole('button', { name: `Refund ${ids.purchase}…` }).click();
    const purchaseId = refund.getByLabel('Purchase id');
    expect(await purchaseId.inputValue()).toBe(ids.purchase);
    expect(await purchaseId.evaluate((input) => input === document.activeElement)).toBe(true);
    await refund.getByRole('button', { name: 'Refund', exact: true }).click();
    await refund.getByText(`Refunded purchase ${ids.purchase}.`).waitFor();
    const { purchasesByBuyerEmail } = await (
      await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL)
    ).ok<{ purchasesByBuyerEmail: { edges: { node: { purchaseId: string; status: string } }[] } }>(
      `query Find($email: String!) { purchasesByBuyerEmail(email: $email) { edges { node { purchaseId status } } } }`,
      { email: BUYER_EMAIL },
    );
    expect(purchasesByBuyerEmail.edges.map((edge) => edge.node)).toEqual([
      { purchaseId: ids.install, status: 'COMPLETED' },
      { purchaseId: ids.purchase, status: 'REFUNDED' },
    ]);
    await page.context().close();
  });
});

describe('admin inputs', () => {
  it('small ones: each input is sized for what it holds: e-mail fields a long address, the points field a number, ids in a monospaced font', async () => {
    const page = await personAt(browser!, plaza.origin, ADMIN_EMAIL);
    await page.goto(`${plaza.origin}/admin`);
    const region = (name: string) => page.getByRole('region', { name });
    const refund = region('Refund a purchase');
    const credit = region('Credit points');
    const roles = region('Users and roles');
    const longAddress = 'nguyen.thi.thanh.huong@example.com.vn';
    const purchaseId = 'APP-1764254000000-7ZQ4MX';
    const inputs = [
      { name: 'refund buyer', input: refund.getByLabel('Buyer’s e-mail'), value: longAddress },
      { name: 'credit e-mail', input: credit.getByLabel('User’s e-mail'), value: longAddress },
      { name: 'roles e-mail', input: roles.getByLabel('User’s e-mail'), value: longAddress },
      { name: 'purchase id', input: refund.getByLabel('Purchase id'), value: purchaseId },
      { name: 'points', input: credit.getByLabel('Points'), value: '10000000' },
    ];
    const measured: Record<string, { width: number; fits: boolean; monospace: boolean }> = {};
    for (const { name, input, value } of inputs) {
      await input.fill(value);
      measured[name] = await input.evaluate((element: HTMLInputElement) => ({
        width: Math.round(element.getBoundingClientRect().width),
        // The whole value is in view: nothing scrolled out of the box.
        fits: element.scrollWidth <= element.clientWidth,
        monospace: getComputedStyle(element).fontFamily.includes('monospace'),
      }));
    }
    for (const name of ['refund buyer', 'credit e-mail', 'roles e-mail']) {
      expect(measured[name], name).toMatchObject({ fits: true });
      // Sized for an address, not the page: well under the 1280 px window's content.
      expect(measured[name]!.width, name).toBeLessThanOrEqual(520);
    }
    expect(measured['purchase id']).toMatchObject({ fits: true, monospace: true });
    expect(measured['purchase id']!.width).toBeLessThanOrEqual(400);
    // Eight digits fit; the field is a number's width, not a sentence's.
    expect(measured.points).toMatchObject({ fits: true });
    expect(measured.points!.width).toBeLessThanOrEqual(160);
    expect(measured.points!.width).toBeLessThan(measured['credit e-mail']!.width / 2);

    // Ids shown in the admin's tables are monospaced too.
    await refund.getByLabel('Buyer’s e-mail').fill(BUYER_EMAIL);
    await refund.getByRole('button', { name: 'Find purchases' }).click();
    const idCell = refund.locator('tbody td').first();
    await idCell.waitFor();
    expect(await idCell.evaluate((cell) => getComputedStyle(cell).fontFamily.includes('monospace'))).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });
});
