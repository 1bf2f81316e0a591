import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import type { RunningProcess } from '../support/child-process.js';
import { freePort } from '../support/free-port.js';
import { getJson } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';
import { startSampleApp } from '../support/sample-app-process.js';

const BUYER_EMAIL = 'buyer@plaza.test';
const APP_NAME = 'Sample app';

let plaza: PlazaProcess;
let sampleApp: RunningProcess | undefined;
let browser: Browser | undefined;
let sampleAppOrigin: string;
let appId: string;
let admin: PlazaApi;
let buyer: PlazaApi;

beforeAll(async () => {
  plaza = await startPlaza();
  const developer = await PlazaApi.signIn(plaza.origin, 'developer@plaza.test');
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
  buyer = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);

  // The developer submits the app before it runs: the client secret it needs comes from the submission.
  const appPort = await freePort();
  sampleAppOrigin = `https://localhost:${appPort}`;
  appId = await publishApp(developer, reviewer, {
    name: APP_NAME,
    appUrl: `${sampleAppOrigin}/`,
    webhookUrl: `${sampleAppOrigin}/webhooks/plaza`,
    pricePoints: 50,
  });
  const { revealClientSecret } = await developer.ok<{ revealClientSecret: { value: string } }>(`mutation Reveal($appId: ID!) { revealClientSecret(appId: $appId) { value } }`, {
    appId,
  });
  sampleApp = await startSampleApp({ port: appPort, platformOrigin: plaza.origin, appId, clientSecret: revealClientSecret.value });

  await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "e2e: buy the sample app") { points } }`, { userId: buyer.userId });
  await buyer.ok(`mutation Preferences { updatePreferences(locale: "en", theme: "dark") { id } }`);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await sampleApp?.stop();
  await plaza?.stop();
});

describe('the sample app inside the AppLauncher', () => {
  it('knows who opened it, in their language and theme, and shows Premium from the signed purchase webhook until a refund', async () => {
    const page = await personAt(browser!, plaza.origin, BUYER_EMAIL);
    const { purchaseApp } = await buyer.ok<{ purchaseApp: { purchaseId: string } }>(`mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }`, { appId });

    // A locale chosen for this opening wins over the account's preference.
    await page.goto(`${plaza.origin}/apps/${appId}/open?locale=vi`);
    let app = page.frameLocator(`iframe[title="${APP_NAME}"]`);
    await app.getByText(`Được mở bởi ${buyer.userId}`, { exact: true }).waitFor();
    expect(await app.locator('#locale').textContent()).toBe('Tiếng Việt (vi)');
    await app.getByText('Premium', { exact: true }).waitFor();

    // Without one, the account's preferences apply (en, dark).
    await page.goto(`${plaza.origin}/apps/${appId}/open`);
    app = page.frameLocator(`iframe[title="${APP_NAME}"]`);
    await app.getByText(`Opened by ${buyer.userId}`, { exact: true }).waitFor();
    expect(await app.locator('#locale').textContent()).toBe('English (en)');
    expect(await app.locator('#theme').textContent()).toBe('Dark (dark)');
    expect(await app.locator('body').evaluate((body) => getComputedStyle(body).backgroundColor)).toBe('rgb(17, 24, 39)');
    await app.getByText('Premium', { exact: true }).waitFor();
    await page.getByRole('status').getByText(`${APP_NAME} is open.`).waitFor();
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'launcher-sample-app.png') });

    // Premium came from Plaza's webhook, which the app verified before recording it.
    const events = await getJson<{ event: { event: string; purchase_id: string; user_id: string } }[]>(`${sampleAppOrigin}/api/events`);
    expect(events.map(({ event }) => [event.event, event.purchase_id, event.user_id])).toContainEqual(['app.purchased', purchaseApp.purchaseId, buyer.userId]);

    // Marks that a reload would wipe out: the refund must show up in the open page.
    await app.locator('body').evaluate(() => void ((window as { openedBeforeRefund?: boolean }).openedBeforeRefund = true));
    await page.evaluate(() => void ((window as { launcherBeforeRefund?: boolean }).launcherBeforeRefund = true));
    await admin.ok(`mutation Refund($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId, reason: "e2e") { status } }`, { purchaseId: purchaseApp.purchaseId });

    await app.getByText('Free plan', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await app.getByText('Premium', { exact: true }).count()).toBe(0);
    expect(await app.locator('body').evaluate(() => (window as { openedBeforeRefund?: boolean }).openedBeforeRefund)).toBe(true);
    expect(await page.evaluate(() => (window as { launcherBeforeRefund?: boolean }).launcherBeforeRefund)).toBe(true);
  });

  it('cannot be framed by any other site', async () => {
    const page = await browser!.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => void (message.text().includes('frame-ancestors') && refusals.push(message.text())));

    await page.setContent(`<iframe title="${APP_NAME}" src="${sampleAppOrigin}/"></iframe>`, { waitUntil: 'load' });

    const appFrame = page.frames().find((frame) => frame !== page.mainFrame());
    expect(appFrame?.url()).toMatch(/^chrome-error:/);
    // Chromium reports the refusal on the console, naming the policy that caused it.
    await expect.poll(() => refusals.join('\n')).toContain(`frame-ancestors ${plaza.origin}`);
  });
});
