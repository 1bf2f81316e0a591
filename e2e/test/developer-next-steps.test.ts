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

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
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
