import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// One person sees every page: a developer who is also a reviewer and an admin (roles granted by the admin).
const PERSON_EMAIL = 'a11y-developer@plaza.test';
const OTHER_DEVELOPER_EMAIL = 'a11y-other@plaza.test';
const BUYER_EMAIL = 'a11y-buyer@plaza.test';

let plaza: PlazaProcess;
let browser: Browser | undefined;
let page: Page;
let person: PlazaApi;
const ids = { approved: '', rejected: '', pending: '', othersPending: '', free: '', delivery: '' };

const submitQuery = `mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`;
const submitInput = (name: string, appUrl: string) => ({
  name,
  shortDescription: `${name}, listed for the accessibility tests`,
  iconUrl: `${appUrl}assets/icon.png`,
  appUrl,
  category: 'productivity',
  pricing: 'FREE',
  pricePoints: null,
  webhookUrl: null,
});

beforeAll(async () => {
  plaza = await startPlaza();
  // Nothing listens there: deliveries keep failing and the launcher waits, which is what those pages show.
  const nowhere = `https://localhost:${await freePort()}/`;
  const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  const other = await PlazaApi.signIn(plaza.origin, OTHER_DEVELOPER_EMAIL);
  const buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  person = await PlazaApi.signIn(plaza.origin, PERSON_EMAIL);
  for (const role of ['REVIEWER', 'ADMIN'])
    await admin.ok(`mutation Grant($userId: ID!, $role: String!) { grantRole(userId: $userId, role: $role) { id } }`, { userId: person.userId, role });

  ids.approved = await publishApp(person, reviewer, { name: 'Approved app', appUrl: nowhere, webhookUrl: `${nowhere}webhooks`, pricePoints: 30 });
  ids.rejected = (await person.ok<{ submitApp: { id: string } }>(submitQuery, { input: submitInput('Rejected app', nowhere) })).submitApp.id;
  await reviewer.ok(
    `mutation Reject($appId: ID!) { decideReview(input: { appId: $appId, outcome: REJECTED, reasons: [MISLEADING_DESCRIPTION], note: "Say what it does." }) { id } }`,
    { appId: ids.rejected },
  );
  ids.pending = (await person.ok<{ submitApp: { id: string } }>(submitQuery, { input: submitInput('Pending app', nowhere) })).submitApp.id;
  ids.othersPending = (await other.ok<{ submitApp: { id: string } }>(submitQuery, { input: submitInput('Awaiting review', nowhere) })).submitApp.id;
  ids.free = await publishApp(other, reviewer, { name: 'Free app', appUrl: nowhere });
  await person.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { id } }`, { appId: ids.free });

  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "e2e: accessibility") { points } }`, { userId: buyer.userId });
  await buyer.ok(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { appId } }`, { appId: ids.approved });
  const deliveries = await person.ok<{ webhookDeliveries: { edges: { node: { id: string } }[] } }>(
    `query Deliveries($appId: ID!) { webhookDeliveries(filter: { appId: $appId }) { edges { node { id } } } }`,
    { appId: ids.approved },
  );
  ids.delivery = deliveries.webhookDeliveries.edges[0]!.node.id;
  await person.ok(`mutation Token($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }`, {
    input: { name: 'CI deliveries', scopes: ['deliveries:read'] },
  });

  browser = await launchChromium();
  page = await personAt(browser, plaza.origin, PERSON_EMAIL);
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

/** The person's saved preferences, as the theme and language switches save them; pages read them on load. */
const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  person.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);

interface Visit {
  name: string;
  path: () => string;
  /** What shows once the page has its data (and, for some, after a person's action). */
  ready: (page: Page) => Promise<unknown>;
  /** axe rules not run on this page, each for a reason given where it is set. */
  skipRules?: string[];
}

const mainHeading = (page: Page) => page.locator('main h1').first().waitFor();

const visits: Visit[] = [
  { name: 'store', path: () => '/', ready: (page) => page.locator('.app-card').first().waitFor() },
  { name: 'app page', path: () => `/store/${ids.approved}`, ready: mainHeading },
  { name: 'library', path: () => '/library', ready: (page) => page.locator('main').getByText('Free app').first().waitFor() },
  { name: 'My Apps', path: () => '/developer', ready: (page) => page.locator('main').getByText('Rejected app').first().waitFor() },
  {
    name: 'submit form with a validation error',
    path: () => '/developer/new',
    ready: async (page) => {
      await page.locator('main form button[type="submit"]').first().click();
      await page.locator('main [aria-invalid="true"]').first().waitFor();
    },
  },
  { name: 'developer app page (rejected)', path: () => `/developer/apps/${ids.rejected}`, ready: (page) => page.locator('main').getByText('Say what it does.').first().waitFor() },
  { name: 'developer app page (approved)', path: () => `/developer/apps/${ids.approved}`, ready: mainHeading },
  {
    name: 'Webhook Logs',
    path: () => `/developer/webhooks?appId=${encodeURIComponent(ids.approved)}`,
    ready: (page) => page.locator('main .delivery-table tbody tr').first().waitFor(),
  },
  { name: 'delivery detail', path: () => `/developer/webhooks/${ids.delivery}`, ready: (page) => page.locator('main table:visible').first().waitFor() },
  { name: 'API tokens', path: () => '/developer/tokens', ready: (page) => page.locator('main').getByText('CI deliveries').first().waitFor() },
  { name: 'review queue', path: () => '/review', ready: (page) => page.locator('main').getByText('Awaiting review').first().waitFor() },
  { name: 'review page', path: () => `/review/${ids.othersPending}`, ready: (page) => page.locator('main form').first().waitFor() },
  { name: 'admin view', path: () => '/admin', ready: (page) => page.locator('main form').first().waitFor() },
  {
    name: 'notifications open',
    path: () => `/developer/apps/${ids.pending}`,
    ready: async (page) => {
      await page.locator('.bell-button').click();
      await page.locator('.notification-list li').first().waitFor();
    },
  },
  {
    name: 'GraphiQL',
    path: () => '/graphiql',
    ready: (page) => page.locator('.graphiql-container .monaco-editor').first().waitFor(),
    // graphiql 5's own tab markup (an li role=tab around its buttons): upstream's, Plaza cannot change it.
    skipRules: ['nested-interactive'],
  },
  { name: 'launcher', path: () => `/apps/${ids.free}/open`, ready: (page) => page.locator('.launcher-bar').waitFor() },
];

const mainPages = new Set(['store', 'app page', 'My Apps', 'submit form with a validation error', 'Webhook Logs', 'delivery detail', 'admin view']);

/** Visits each page and collects every serious or critical axe violation, named by page, so one run shows them all. */
async function violationsOn(selected: Visit[]): Promise<string[]> {
  const found: string[] = [];
  for (const visit of selected) {
    await page.goto(`${plaza.origin}${visit.path()}`);
    // A page that never shows its content is a finding too, and the sweep goes on to report the others.
    const problem = await visit.ready(page).then(
      () => null,
      (error: Error) => error.message.split('\n')[0],
    );
    if (problem) {
      found.push(`${visit.name}: did not show its content: ${problem}`);
      continue;
    }
    // Data arriving after the first paint (counts, live updates) is part of what people see.
    // Never idle within the timeout (a page that keeps asking): the checks below read what is drawn by then.
    await page.waitForLoadState('networkidle').catch(() => undefined);
    for (const violation of await seriousAccessibilityViolations(page, { skipRules: visit.skipRules })) found.push(`${visit.name}: ${violation}`);
  }
  return found;
}

describe('every page passes axe with no serious or critical violation', () => {
  it('in the light theme', async () => {
    await prefer({ theme: 'light', locale: 'en' });
    expect(await violationsOn(visits)).toEqual([]);
  });

  it('in the dark theme', async () => {
    await prefer({ theme: 'dark', locale: 'en' });
    expect(await violationsOn(visits)).toEqual([]);
  });

  it('in Vietnamese, dark and light, on the main pages', async () => {
    await prefer({ theme: 'dark', locale: 'vi' });
    const dark = await violationsOn(visits.filter((visit) => mainPages.has(visit.name)));
    await prefer({ theme: 'light', locale: 'vi' });
    const light = await violationsOn(visits.filter((visit) => mainPages.has(visit.name)));
    expect([...dark, ...light]).toEqual([]);
  });
});

describe('GraphiQL follows the person', () => {
  it('has a dark editor in the dark theme and a Vietnamese way back in Vietnamese', async () => {
    await prefer({ theme: 'dark', locale: 'vi' });
    await page.goto(`${plaza.origin}/graphiql`);
    await page.locator('.graphiql-container').waitFor();
    await page.getByRole('link', { name: 'Quay lại Plaza' }).waitFor();
    // graphiql marks its dark theme on <body>; the editor's own background is what a person sees.
    await expect.poll(() => page.evaluate(() => document.body.classList.contains('graphiql-dark'))).toBe(true);
    const background = await page.locator('.graphiql-container').evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(relativeLuminance(background)).toBeLessThan(0.1);

    await prefer({ theme: 'light', locale: 'en' });
    await page.reload();
    await page.getByRole('link', { name: 'Back to Plaza' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.body.classList.contains('graphiql-light'))).toBe(true);
    const lightBackground = await page.locator('.graphiql-container').evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(relativeLuminance(lightBackground)).toBeGreaterThan(0.5);
  });
});

/** WCAG relative luminance of a computed "rgb(r, g, b)" colour: 0 is black, 1 is white. */
function relativeLuminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
    const channel = Number(part) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
