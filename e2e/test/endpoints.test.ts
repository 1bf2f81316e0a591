import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 26, "Where people see it": an app's endpoints on its page (add, edit, pause/resume, delete, each
// one's health), and Webhook Logs per endpoint (filter, column, the delivery's endpoint, recover and test
// event to one endpoint), on real receivers: one that answers, one that fails until mended, one that hangs.

const DEVELOPER_EMAIL = 'endpoints.dev@plaza.test';
const BUYER_EMAIL = 'endpoints.buyer@plaza.test';

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  state: string;
  rateLimitPerSecond: number | null;
}

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
let buyer: PlazaApi;
let receiver: Awaited<ReturnType<typeof startHttpsServer>>;
/** Webhook requests by path, in arrival order: each with its event and whether it was a test. */
const received: { path: string; event: string; test: boolean }[] = [];
/** Paths that answer 500 until mended; /hang never answers. */
const failingPaths = new Set(['/dead']);

const ENDPOINTS = `query($id: ID!) { app(id: $id) { webhookEndpoints { id url description events state rateLimitPerSecond } } }`;
const endpointsOf = async (appId: string) => (await developer.ok<{ app: { webhookEndpoints: Endpoint[] } }>(ENDPOINTS, { id: appId })).app.webhookEndpoints;
const deliveriesTo = async (endpointId: string) =>
  (
    await developer.ok<{ webhookDeliveries: { edges: { node: { id: string; status: string; endpoint: { id: string } | null } }[] } }>(
      `query($filter: WebhookDeliveryFilter) { webhookDeliveries(filter: $filter, first: 100) { edges { node { id status endpoint { id } } } } }`,
      { filter: { endpointId } },
    )
  ).webhookDeliveries.edges.map((edge) => edge.node);
/** An endpoint's health as the API tells it (WebhookEndpoint.health). */
const healthOf = async (appId: string, endpointId: string) =>
  (
    await developer.ok<{ app: { webhookEndpoints: { id: string; health: { failingSince: string | null; lastError: string | null } }[] } }>(
      `query($id: ID!) { app(id: $id) { webhookEndpoints { id health { failingSince lastError } } } }`,
      { id: appId },
    )
  ).app.webhookEndpoints.find((endpoint) => endpoint.id === endpointId)?.health;
/** How far an element's content is wider than its box (0: it fits, nothing to scroll). */
const overflowOf = (locator: import('playwright-core').Locator) => locator.evaluate((element) => element.scrollWidth - element.clientWidth);
const install = (appId: string) => buyer.ok(`mutation($appId: ID!) { installApp(appId: $appId) { id } }`, { appId });
const uninstall = (appId: string) => buyer.ok(`mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }`, { appId });
const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  developer.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);

/** The page and the engine on a busy machine: seconds, not expect.poll's default of one. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

beforeAll(async () => {
  // An endpoint failing for a second with no success is disabled, so the test sees an automatic disable.
  plaza = await startPlaza(null, { WEBHOOK_DISABLE_AFTER: '1s' });
  receiver = await startHttpsServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = request.url ?? '';
      if (request.method !== 'POST') return void response.writeHead(200).end('ok');
      received.push({ path: url, event: (JSON.parse(body) as { event: string }).event, test: request.headers['x-platform-test'] === 'true' });
      if (url === '/hang') return;
      response.writeHead(failingPaths.has(url) ? 500 : 200).end(failingPaths.has(url) ? 'down' : 'ok');
    });
  });
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await plaza?.stop();
});

describe('an app’s endpoints on its page', () => {
  it('adds one (every event by default; the server’s refusal at its field), edits, pauses and resumes it, and deletes one saying how many deliveries give up', async () => {
    const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    const appId = await publishApp(developer, reviewer, { name: 'Two Places', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/primary` });
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${plaza.origin}/developer/apps/${encodeURIComponent(appId)}`);
    const section = page.getByRole('region', { name: 'Webhook endpoints' });
    const items = section.getByTestId('endpoint');
    await poll(() => items.count()).toBe(1);
    await poll(() => items.first().textContent()).toContain(`${receiver.origin}/primary`);
    expect(await items.first().textContent()).toContain('Enabled');

    await section.getByRole('button', { name: 'Add endpoint' }).click();
    const form = section.getByRole('form', { name: 'New endpoint' });
    // Every event is ticked to begin with.
    expect(await form.getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).checked))).toEqual([true, true, true, true]);
    await form.getByLabel('Endpoint URL').fill('not a url');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    // The server's own message, under the field it names, and the field marked.
    await poll(() => form.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBe('true');
    const problemId = (await form.getByLabel('Endpoint URL').getAttribute('aria-describedby'))!.split(' ').pop()!;
    const urlProblem = await form.locator(`[id="${problemId}"]`).textContent();
    expect(urlProblem).toMatch(/url/i);
    await form.getByLabel('Endpoint URL').fill(`${receiver.origin}/billing`);
    await form.getByLabel(/^Rate limit/).fill('5000');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await poll(() => form.getByLabel(/^Rate limit/).getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBeNull();
    expect(await endpointsOf(appId)).toHaveLength(1);

    await form.getByLabel(/^Rate limit/).fill('5');
    await form.getByLabel('Description (optional)').fill('Billing');
    await form.getByRole('checkbox', { name: 'app.uninstalled' }).uncheck();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await section.getByText(`Endpoint ${receiver.origin}/billing added.`).waitFor();
    await poll(() => items.count()).toBe(2);
    const billing = items.nth(1);
    expect(await billing.textContent()).toContain('Billing');
    expect(await billing.textContent()).toContain('At most 5 requests a second');
    expect(await billing.textContent()).toContain('app.purchased, app.installed, app.refunded');
    const [, added] = await endpointsOf(appId);
    expect(added).toMatchObject({ url: `${receiver.origin}/billing`, description: 'Billing', events: ['APP_PURCHASED', 'APP_INSTALLED', 'APP_REFUNDED'], rateLimitPerSecond: 5 });

    // Edit: every event again, no pace.
    await billing.getByRole('button', { name: /^Edit/ }).click();
    const edit = billing.getByRole('form', { name: /^Edit endpoint/ });
    await edit.getByLabel('Description (optional)').fill('Billing v2');
    await edit.getByRole('checkbox', { name: 'app.uninstalled' }).check();
    await edit.getByLabel(/^Rate limit/).fill('');
    await edit.getByRole('button', { name: 'Save endpoint' }).click();
    await section.getByText(`Endpoint ${receiver.origin}/billing saved.`).waitFor();
    expect(await billing.textContent()).toContain('Billing v2');
    expect(await billing.textContent()).toContain('No limit');
    expect((await endpointsOf(appId))[1]).toMatchObject({
      description: 'Billing v2',
      events: ['APP_PURCHASED', 'APP_INSTALLED', 'APP_UNINSTALLED', 'APP_REFUNDED'],
      rateLimitPerSecond: null,
    });

    // Pause holds its events; Resume sends again.
    await billing.getByRole('button', { name: /^Pause/ }).click();
    await poll(() => billing.locator('.badge').first().textContent()).toBe('Paused');
    expect((await endpointsOf(appId))[1]!.state).toBe('PAUSED');
    await billing.getByRole('button', { name: /^Resume/ }).click();
    await poll(() => billing.locator('.badge').first().textContent()).toBe('Enabled');
    expect((await endpointsOf(appId))[1]!.state).toBe('ENABLED');

    // Point it at a receiver that never answers: an event's delivery to it is still open when it is deleted.
    await developer.ok(`mutation($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { id } }`, {
      id: added!.id,
      input: { url: `${receiver.origin}/hang`, description: 'Billing v2' },
    });
    await install(appId);
    await poll(() => received.filter((request) => request.path === '/hang').length).toBeGreaterThan(0);
    const [open] = await deliveriesTo(added!.id);
    expect(['PENDING', 'RETRYING']).toContain(open!.status);
    await page.reload();
    const hanging = section.getByTestId('endpoint').nth(1);
    await poll(() => hanging.textContent()).toContain('/hang');
    await hanging.getByRole('button', { name: /^Delete/ }).click();
    const confirmation = hanging.getByRole('group', { name: /^Delete / });
    await confirmation.getByText('1 delivery not yet delivered will give up; the log keeps every delivery.').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await confirmation.getByRole('button', { name: 'Delete endpoint' }).click();
    await section.getByText(`Endpoint ${receiver.origin}/hang deleted; its deliveries stay in the log.`).waitFor();
    await poll(() => section.getByTestId('endpoint').count()).toBe(1);
    expect((await endpointsOf(appId)).map((endpoint) => endpoint.url)).toEqual([`${receiver.origin}/primary`]);

    // The deleted endpoint's delivery stays in the log, gave up, and its row says where it went: deleted.
    const gaveUp = await developer.ok<{ webhookDelivery: { status: string; endpointId: string; endpoint: null } }>(
      `query($id: ID!) { webhookDelivery(id: $id) { status endpointId endpoint { id } } }`,
      { id: open!.id },
    );
    expect(gaveUp.webhookDelivery).toMatchObject({ status: 'FAILED', endpointId: added!.id, endpoint: null });
    await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
    await poll(() => page.getByTestId(`delivery-${open!.id}`).getByTestId('delivery-endpoint').textContent()).toBe('deleted');
    await page.getByTestId(`delivery-${open!.id}`).getByRole('link').click();
    await poll(() => page.getByTestId('delivery-endpoint').textContent()).toBe('deleted endpoint');
    await page.context().close();
  });

  it('an endpoint disabled after failing says so with Resume; Webhook Logs filters and names endpoints, and recovery and a test event go to the one chosen', async () => {
    const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    const appId = await publishApp(developer, reviewer, { name: 'Fan Out', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/healthy` });
    const dead = (
      await developer.ok<{ createWebhookEndpoint: Endpoint }>(
        `mutation($appId: ID!, $input: WebhookEndpointInput!) { createWebhookEndpoint(appId: $appId, input: $input) { id url description events state rateLimitPerSecond } }`,
        { appId, input: { url: `${receiver.origin}/dead`, description: 'Analytics' } },
      )
    ).createWebhookEndpoint;
    const [healthy] = await endpointsOf(appId);

    // Two events: the dead endpoint's first fails, and a failure past WEBHOOK_DISABLE_AFTER (1 s) disables it.
    await install(appId);
    await poll(async () => (await deliveriesTo(dead.id)).map((delivery) => delivery.status)).toEqual(['FAILED']);
    // The next failure disables it once its run of failures is older than WEBHOOK_DISABLE_AFTER: wait for that fact (with 100 ms to spare), as the API tells it.
    await poll(async () => Date.now() - Date.parse((await healthOf(appId, dead.id))?.failingSince ?? 'never')).toBeGreaterThan(1_100);
    await uninstall(appId);
    await poll(async () => (await endpointsOf(appId)).map((endpoint) => endpoint.state)).toEqual(['ENABLED', 'DISABLED']);
    await poll(async () => (await deliveriesTo(healthy!.id)).map((delivery) => delivery.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);

    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${plaza.origin}/developer/apps/${encodeURIComponent(appId)}`);
    const section = page.getByRole('region', { name: 'Webhook endpoints' });
    const items = section.getByTestId('endpoint');
    await poll(() => items.count()).toBe(2);
    // Health at a glance, as the server keeps it: the healthy one's attempts over the last day, the dead one's run of failures and last error, disabled with what to do.
    const host = new URL(receiver.origin).host;
    await poll(() => items.nth(0).getByTestId('endpoint-health').textContent()).toContain('100% succeeded (2 of 2)');
    await poll(() => items.nth(1).getByTestId('endpoint-health').textContent()).toMatch(/0% succeeded \(\d of \d\)/);
    expect(await items.nth(1).getByTestId('endpoint-failing').textContent()).toMatch(/; last error: HTTP 500$/);
    expect(await items.nth(0).getByTestId('endpoint-failing').count()).toBe(0);
    expect(await items.nth(1).locator('.badge').first().textContent()).toContain('Disabled');
    expect(await items.nth(1).textContent()).toContain('Plaza stopped sending to this endpoint after its deliveries kept failing');
    // The app still receives through its healthy endpoint: no "Webhook disabled" for the app, a banner naming the disabled endpoint instead.
    expect((await endpointsOf(appId)).map((endpoint) => endpoint.state)).toEqual(['ENABLED', 'DISABLED']);
    await poll(() => page.locator('.health-banner').allTextContents()).toEqual([expect.stringContaining(`Webhook endpoint disabled: ${host}/dead`)]);
    const banner = page.getByTestId('endpoint-disabled-banner');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'endpoints-app-page.png'), fullPage: true });

    // Mended, and resumed from the banner: the endpoint's badge and the banner agree at once.
    failingPaths.delete('/dead');
    await banner.getByRole('button', { name: `Resume ${receiver.origin}/dead` }).click();
    await poll(() => items.nth(1).locator('.badge').first().textContent()).toBe('Enabled');
    await poll(() => banner.count()).toBe(0);
    expect((await endpointsOf(appId)).map((endpoint) => endpoint.state)).toEqual(['ENABLED', 'ENABLED']);

    // Webhook Logs for the app: an endpoint column, and a filter since the app has two.
    await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
    const rows = page.locator('.delivery-table tbody tr');
    await poll(() => rows.count()).toBe(4);
    // At 1280 px the table fits: nothing to scroll sideways, on the region or the page.
    expect(await overflowOf(page.locator('.table-scroll'))).toBeLessThanOrEqual(0);
    expect(await overflowOf(page.locator('html'))).toBeLessThanOrEqual(0);
    expect((await page.getByTestId('delivery-endpoint').allTextContents()).sort()).toEqual([`${host}/dead`, `${host}/dead`, `${host}/healthy`, `${host}/healthy`]);
    expect(await page.getByTestId('delivery-last-response').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^HTTP 500/), expect.stringMatching(/^HTTP 200/)]),
    );
    await page.getByRole('form', { name: 'Filter deliveries' }).getByLabel('Endpoint').selectOption(dead.id);
    await page.waitForURL(/endpointId=ep_/);
    await poll(async () => (await page.getByTestId('delivery-endpoint').allTextContents()).join()).toBe(`${host}/dead,${host}/dead`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Recover to the dead one only: its two failed deliveries are sent again, the healthy one gets nothing.
    const before = received.length;
    await page.getByLabel('Endpoint to recover').selectOption(dead.id);
    await page.getByRole('button', { name: '24 hours ago' }).click();
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await page.getByText('2 failed deliveries queued to be sent again.', { exact: false }).waitFor();
    await poll(async () => (await deliveriesTo(dead.id)).map((delivery) => delivery.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(received.slice(before).map((request) => request.path)).toEqual(['/dead', '/dead']);

    // Send test event: the list's endpoint is the one chosen, another can be picked.
    const beforeTest = received.length;
    await page.getByLabel('Send to').selectOption(healthy!.id);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await poll(() => received.slice(beforeTest).filter((request) => request.test).length).toBe(1);
    expect(received.slice(beforeTest).map((request) => request.path)).toEqual(['/healthy']);

    // The delivery page names its endpoint: URL and state.
    const [deadDelivery] = await deliveriesTo(dead.id);
    await page.getByTestId(`delivery-${deadDelivery!.id}`).getByRole('link').click();
    await poll(() => page.getByTestId('delivery-endpoint').textContent()).toBe(`${receiver.origin}/dead Enabled`);

    // Every app's deliveries (each row names its app too) fit as well.
    await page.goto(`${plaza.origin}/developer/webhooks`);
    await poll(() => rows.count()).toBeGreaterThan(4);
    expect(await overflowOf(page.locator('.table-scroll'))).toBeLessThanOrEqual(0);
    expect(await overflowOf(page.locator('html'))).toBeLessThanOrEqual(0);

    // Vietnamese, dark: the same pages, every new word translated, axe clean.
    await prefer({ theme: 'dark', locale: 'vi' });
    await page.goto(`${plaza.origin}/developer/apps/${encodeURIComponent(appId)}`);
    const vi = page.getByRole('region', { name: 'Điểm nhận webhook' });
    await poll(() => vi.getByTestId('endpoint').count()).toBe(2);
    await poll(() => vi.getByTestId('endpoint-health').first().textContent()).toMatch(/thành công \(\d+\/\d+\)/);
    expect(await vi.textContent()).toContain('Lượt thử, 24 giờ qua');
    await vi.getByRole('button', { name: 'Thêm điểm nhận' }).click();
    await vi.getByLabel('URL điểm nhận').waitFor();
    expect(await vi.textContent()).toContain('Nhịp gửi');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
    await poll(() => rows.count()).toBeGreaterThan(0);
    await page.getByRole('columnheader', { name: 'Điểm nhận' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await prefer({ theme: 'light', locale: 'en' });
    await page.reload();
    await poll(() => rows.count()).toBe(5);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'webhook-logs-endpoints.png'), fullPage: true });
    await page.context().close();
  });
});
