import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27 for developers, the rest: one endpoint picker for every action that goes to an endpoint,
// "Recover failed since…" from the first failure, and lists that are empty say what to do next.

const DEVELOPER_EMAIL = 'next.dev@plaza.test';
const BUYER_EMAIL = 'next.buyer@plaza.test';

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
let buyer: PlazaApi;
let reviewer: PlazaApi;
let receiver: Awaited<ReturnType<typeof startHttpsServer>>;
/** Paths that answer 500 until mended; every other path answers 200. */
const failingPaths = new Set<string>();

const addEndpoint = async (appId: string, path: string) =>
  (
    await developer.ok<{ createWebhookEndpoint: { id: string } }>(
      `mutation($appId: ID!, $input: WebhookEndpointInput!) { createWebhookEndpoint(appId: $appId, input: $input) { id } }`,
      { appId, input: { url: `${receiver.origin}${path}` } },
    )
  ).createWebhookEndpoint.id;
interface Delivery {
  id: string;
  status: string;
  createdAt: string;
  endpoint: { id: string } | null;
}
/** An app's deliveries, newest first, as the API tells them. */
const deliveriesOf = async (appId: string) =>
  (
    await developer.ok<{ webhookDeliveries: { edges: { node: Delivery }[] } }>(
      `query($filter: WebhookDeliveryFilter) { webhookDeliveries(filter: $filter, first: 100) { edges { node { id status createdAt endpoint { id } } } } }`,
      { filter: { appId } },
    )
  ).webhookDeliveries.edges.map((edge) => edge.node);
/** Each endpoint's statuses, oldest delivery first, once none is still being sent. */
const settledStatuses = async (appId: string, endpointIds: readonly string[]) => {
  const deliveries = (await deliveriesOf(appId)).reverse();
  return endpointIds.map((id) => deliveries.filter((delivery) => delivery.endpoint?.id === id).map((delivery) => delivery.status));
};
const failingSinceOf = async (appId: string) =>
  (
    await developer.ok<{ app: { webhookEndpoints: { id: string; url: string; health: { failingSince: string | null } }[] } }>(
      `query($id: ID!) { app(id: $id) { webhookEndpoints { id url health { failingSince } } } }`,
      { id: appId },
    )
  ).app.webhookEndpoints;
const install = (appId: string) => buyer.ok(`mutation($appId: ID!) { installApp(appId: $appId) { id } }`, { appId });
const uninstall = (appId: string) => buyer.ok(`mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }`, { appId });
const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  developer.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);
const MINUTE = 60_000;
/** The start of the minute of `instant`: what a datetime-local field to the minute asks for. */
const minuteOf = (instant: string) => Math.floor(Date.parse(instant) / MINUTE) * MINUTE;

/** The options of the select labelled `label`, as a person reads them. */
const optionsOf = (page: Page, label: string) => page.getByLabel(label, { exact: true }).locator('option').allTextContents();

/** The page and the engine on a busy machine: seconds, not expect.poll's default of one. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

beforeAll(async () => {
  plaza = await startPlaza();
  receiver = await startHttpsServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const failing = request.method === 'POST' && failingPaths.has(request.url ?? '');
      response.writeHead(failing ? 500 : 200).end(failing ? 'down' : 'ok');
    });
  });
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await plaza?.stop();
});

describe('one endpoint picker', () => {
  it('Send to (Webhook Logs and the app page) and Endpoint to recover list an app’s endpoints alike; an app with one endpoint shows none', async () => {
    const appId = await publishApp(developer, reviewer, { name: 'Two Hooks', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/orders` });
    await addEndpoint(appId, '/audit');
    const single = await publishApp(developer, reviewer, { name: 'One Hook', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/only` });
    const host = new URL(receiver.origin).host;
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    try {
      await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
      await poll(() => optionsOf(page, 'Send to')).toEqual(['Every endpoint', `${host}/orders`, `${host}/audit`]);
      await poll(() => optionsOf(page, 'Endpoint to recover')).toEqual(['Every enabled endpoint', `${host}/orders`, `${host}/audit`]);
      // Both are laid out alike: the label above its field.
      for (const label of ['Send to', 'Endpoint to recover']) {
        const field = (await page.getByLabel(label, { exact: true }).boundingBox())!;
        const caption = (await page.locator('label', { hasText: label }).boundingBox())!;
        expect(caption.y + caption.height, label).toBeLessThanOrEqual(field.y + 1);
      }
      expect(await seriousAccessibilityViolations(page)).toEqual([]);

      await page.goto(`${plaza.origin}/developer/apps/${encodeURIComponent(appId)}`);
      await poll(() => optionsOf(page, 'Send to')).toEqual(['Every endpoint', `${host}/orders`, `${host}/audit`]);

      await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(single)}`);
      await page.getByRole('button', { name: 'Recover failed deliveries' }).waitFor();
      // The endpoints have been read once the health banner shows: nothing to choose between, nothing shown.
      await page.getByText('Webhook enabled').waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByLabel('Send to', { exact: true }).count()).toBe(0);
      expect(await page.getByLabel('Endpoint to recover', { exact: true }).count()).toBe(0);
    } finally {
      await page.context().close();
    }
  });
});

describe('Recover failed since the first failure', () => {
  it('fills the field with the chosen endpoint’s first failure, or the earliest of the enabled ones, and recovers exactly the deliveries failed since then', async () => {
    const appId = await publishApp(developer, reviewer, { name: 'Flaky Hooks', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/flaky-a` });
    const b = await addEndpoint(appId, '/flaky-b');
    const a = (await failingSinceOf(appId)).find((endpoint) => endpoint.url.endsWith('/flaky-a'))!.id;

    // An old failure of B's, ended by a success: a run of failures that is over.
    failingPaths.add('/flaky-b');
    await install(appId);
    await poll(() => settledStatuses(appId, [a, b])).toEqual([['SUCCEEDED'], ['FAILED']]);
    failingPaths.delete('/flaky-b');
    failingPaths.add('/flaky-a');
    await uninstall(appId);
    await poll(() => settledStatuses(appId, [a, b])).toEqual([
      ['SUCCEEDED', 'FAILED'],
      ['FAILED', 'SUCCEEDED'],
    ]);
    const aSince = (await failingSinceOf(appId)).find((endpoint) => endpoint.id === a)!.health.failingSince!;
    expect(aSince).toBeTruthy();
    // The field is to the minute: B's new run starts in a later minute than A's, so the two first failures read apart.
    await expect.poll(() => Math.floor(Date.now() / MINUTE) * MINUTE, { timeout: 2 * MINUTE, interval: 500 }).toBeGreaterThan(minuteOf(aSince));
    failingPaths.add('/flaky-b');
    await install(appId);
    await poll(() => settledStatuses(appId, [a, b])).toEqual([
      ['SUCCEEDED', 'FAILED', 'FAILED'],
      ['FAILED', 'SUCCEEDED', 'FAILED'],
    ]);
    const bSince = (await failingSinceOf(appId)).find((endpoint) => endpoint.id === b)!.health.failingSince!;
    expect(minuteOf(bSince)).toBeGreaterThan(minuteOf(aSince));
    /** The failed deliveries to `endpoints` created at or after `since` (ms): what a recovery from then must send. */
    const failedSince = async (since: number, endpoints: readonly string[]) =>
      (await deliveriesOf(appId)).filter((delivery) => delivery.status === 'FAILED' && endpoints.includes(delivery.endpoint!.id) && Date.parse(delivery.createdAt) >= since);

    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, { viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
      const field = page.getByLabel('Recover failed since…');
      const preset = page.getByRole('group', { name: 'Quick choices' }).getByRole('button', { name: 'Since the first failure' });
      /** The field's value as an instant (the browser reads it in its own time zone). */
      const fieldInstant = async () => page.evaluate((value) => new Date(value).getTime(), await field.inputValue());

      // B chosen: its own first failure, not A's earlier one, and not B's old run.
      await page.getByLabel('Endpoint to recover', { exact: true }).selectOption(b);
      await poll(() => preset.isEnabled()).toBe(true);
      await preset.click();
      await poll(fieldInstant).toBe(minuteOf(bSince));
      const bExpected = await failedSince(minuteOf(bSince), [b]);
      // Exactly B's new failure: its old one (a finished run) stays out.
      expect(bExpected).toHaveLength(1);
      failingPaths.delete('/flaky-b');
      await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
      await page.getByText('1 failed deliveries queued to be sent again.', { exact: false }).waitFor();
      await poll(() => settledStatuses(appId, [a, b])).toEqual([
        ['SUCCEEDED', 'FAILED', 'FAILED'],
        ['FAILED', 'SUCCEEDED', 'SUCCEEDED'],
      ]);

      // Every enabled endpoint: the earliest first failure of them, A's, though B's run has ended by now.
      await page.getByLabel('Endpoint to recover', { exact: true }).selectOption('');
      await preset.click();
      await poll(fieldInstant).toBe(minuteOf(aSince));
      const allExpected = await failedSince(minuteOf(aSince), [a, b]);
      // A's two, and B's old one only if it failed in A's first minute.
      expect(allExpected.filter((delivery) => delivery.endpoint!.id === a)).toHaveLength(2);
      const leftOut = (await deliveriesOf(appId)).filter((delivery) => delivery.status === 'FAILED' && !allExpected.some((expected) => expected.id === delivery.id));
      failingPaths.delete('/flaky-a');
      await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
      await page.getByText(`${allExpected.length} failed deliveries queued to be sent again.`, { exact: false }).waitFor();
      const statusOf = async (ids: readonly string[]) => (await deliveriesOf(appId)).filter((delivery) => ids.includes(delivery.id)).map((delivery) => delivery.status);
      await poll(() => statusOf(allExpected.map((delivery) => delivery.id))).toEqual(allExpected.map(() => 'SUCCEEDED'));
      expect(await statusOf(leftOut.map((delivery) => delivery.id))).toEqual(leftOut.map(() => 'FAILED'));
      expect(await seriousAccessibilityViolations(page)).toEqual([]);

      await prefer({ theme: 'dark', locale: 'vi' });
      await page.reload();
      await page.getByRole('group', { name: 'Chọn nhanh' }).getByRole('button', { name: 'Từ lần thất bại đầu tiên' }).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    } finally {
      await prefer({ theme: 'light', locale: 'en' });
      await page.context().close();
    }
  });
});

describe('empty lists say what to do next', () => {
  it('My Apps, API tokens and Webhook Logs (no app, an app with none yet, filters that hide all) each offer the next step, in both languages', async () => {
    const EMPTY_EMAIL = 'next.empty@plaza.test';
    const newcomer = await PlazaApi.signIn(plaza.origin, EMPTY_EMAIL);
    const page = await personAt(browser!, plaza.origin, EMPTY_EMAIL);
    const main = page.locator('main');
    try {
      await page.goto(`${plaza.origin}/developer`);
      await main.getByText('You have not submitted any apps yet.').waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await main.getByRole('link', { name: 'Submit your first app' }).click();
      await page.waitForURL(`${plaza.origin}/developer/new`);

      await page.goto(`${plaza.origin}/developer/tokens`);
      await main.getByText(/^No tokens yet: a script or an integration calls Plaza’s API with one/).waitFor();
      await main.getByRole('button', { name: 'Create your first token' }).click();
      await poll(() => page.evaluate(() => document.activeElement?.id && document.querySelector(`label[for="${document.activeElement.id}"]`)?.textContent)).toBe('Token name');
      expect(await seriousAccessibilityViolations(page)).toEqual([]);

      await page.goto(`${plaza.origin}/developer/webhooks`);
      await main.getByText(/^No deliveries yet: Plaza sends one each time one of your apps is installed/).waitFor();
      expect(await main.getByRole('link', { name: 'Open one of your apps to send a test event' }).getAttribute('href')).toBe('/developer');
      expect(await seriousAccessibilityViolations(page)).toEqual([]);

      const appId = await publishApp(newcomer, reviewer, { name: 'Quiet Hooks', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/quiet` });
      await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
      await main.getByText(/^No deliveries for this app yet/).waitFor();
      await main.getByRole('button', { name: 'Send a test event now' }).click();
      const rows = page.locator('.delivery-table tbody tr');
      await poll(() => rows.count()).toBe(1);

      // Filters that hide the one delivery: cleared in one press, the app kept.
      await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}&status=FAILED`);
      await main.getByText('No deliveries match these filters.').waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await main.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
      await poll(() => rows.count()).toBe(1);

      await newcomer.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, { theme: 'dark', locale: 'vi' });
      await page.goto(`${plaza.origin}/developer/tokens`);
      await main.getByRole('button', { name: 'Tạo mã đầu tiên' }).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}&status=FAILED`);
      await main.getByRole('button', { name: 'Xóa bộ lọc' }).waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
