import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { PlazaApi } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, the reviewer's and the admin's side: finding 13 (a review starts with no outcome chosen; the queue
// and the review page say who the developer is and show categories in words) and the small ones (admins find
// a purchase by the buyer's e-mail; admin inputs sized for their content).

const DEVELOPER_EMAIL = 'reviewed.dev@plaza.test';
const PENDING_APP = 'Spelling Bee';

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
const ids = { pending: '' };

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
