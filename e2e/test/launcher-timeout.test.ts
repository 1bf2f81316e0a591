import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

const USER_EMAIL = 'user@plaza.test';
const APP_NAME = 'Silent app';

let plaza: PlazaProcess;
let silentApp: Awaited<ReturnType<typeof startHttpsServer>> | undefined;
let browser: Browser | undefined;
let appId: string;

beforeAll(async () => {
  plaza = await startPlaza();
  // A real page that loads fine but never runs the handshake: it does not load the SDK.
  silentApp = await startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Silent app</title><p>This page never loads the Plaza SDK.</p>');
  });
  const developer = await PlazaApi.signIn(plaza.origin, 'developer@plaza.test');
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  const user = await PlazaApi.signIn(plaza.origin, USER_EMAIL);
  appId = await publishApp(developer, reviewer, { name: APP_NAME, appUrl: `${silentApp.origin}/` });
  await user.ok(`mutation Install($appId: ID!) { installApp(appId: $appId) { appId } }`, { appId });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await silentApp?.close();
  await plaza?.stop();
});

describe('an app that never answers INIT_SESSION', () => {
  it('gets 15 seconds, then the user is told and can retry from the keyboard', async () => {
    const page = await personAt(browser!, plaza.origin, USER_EMAIL);

    const openedAt = Date.now();
    await page.goto(`${plaza.origin}/apps/${appId}/open`);
    await page.frameLocator(`iframe[title="${APP_NAME}"]`).getByText('This page never loads the Plaza SDK.').waitFor();
    await page.getByRole('status').getByText(`Waiting for ${APP_NAME} to respond…`).waitFor();

    const failure = page.getByRole('alert');
    await failure.waitFor({ timeout: 30_000 });
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(15_000);
    expect(await failure.textContent()).toContain(`${APP_NAME} did not respond within 15 seconds.`);
    const retry = page.getByRole('button', { name: 'Retry' });
    expect(await retry.evaluate((button) => button === document.activeElement)).toBe(true);
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'launcher-timeout.png') });

    const relaunch = page.waitForRequest((request) => request.url().endsWith('/graphql') && (request.postData() ?? '').includes('"operationName":"LaunchApp"'));
    await page.keyboard.press('Enter');
    await relaunch;
    await failure.waitFor({ state: 'detached' });
    await page.getByRole('status').getByText(`Waiting for ${APP_NAME} to respond…`).waitFor();
  });
});
