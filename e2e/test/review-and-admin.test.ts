import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, the reviewer's and the admin's side: finding 13 (a review starts with no outcome chosen; the queue
// and the review page say who the developer is and show categories in words) and the small ones (admins find
// a purchase by the buyer's e-mail; admin inputs sized for their content).

const DEVELOPER_EMAIL = 'reviewed.dev@plaza.test';
const PENDING_APP = 'Spelling Bee';
const APPROVED_APP = 'Word Garden';
const REJECTED_APP = 'Number Maze';

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
let reviewerApi: PlazaApi;
const ids = { pending: '', approved: '', rejected: '' };

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
