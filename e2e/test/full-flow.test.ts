import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import type { RunningProcess } from '../support/child-process.js';
import { freePort } from '../support/free-port.js';
import { startHttpsServer } from '../support/https-servers.js';
import { REPO_ROOT, SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi } from '../support/plaza-api.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';
import { startSampleApp } from '../support/sample-app-process.js';

const DEVELOPER_EMAIL = 'developer@plaza.test';
const BUYER_EMAIL = 'buyer@plaza.test';
const APP_NAME = 'Sample app';
const PRICE = 50;
const LONG_DESCRIPTION =
  'Sample app is the smallest app a Plaza developer can start from: it shows who opened it, in their language and theme, and turns Premium when its purchase webhook arrives.\n\nIts source shows the launch handshake, the session token check and a signed webhook receiver, each in a few lines.';

let plaza: PlazaProcess;
let sampleApp: RunningProcess | undefined;
let browser: Browser | undefined;
/** The listing's screenshot pages: the sample app as the README's own screens show it, light and dark, served over HTTPS as a developer's would be. */
let screenshots: Awaited<ReturnType<typeof startHttpsServer>> | undefined;

beforeAll(async () => {
  plaza = await startPlaza();
  const images: Record<string, Buffer> = {
    '/light.png': readFileSync(path.join(REPO_ROOT, 'docs/screenshots/app-open.png')),
    '/dark.png': readFileSync(path.join(REPO_ROOT, 'docs/screenshots/launcher-sample-app.png')),
  };
  screenshots = await startHttpsServer((request, response) => {
    const image = images[request.url ?? ''];
    if (image) response.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' }).end(image);
    else response.writeHead(404).end();
  });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await screenshots?.close();
  await sampleApp?.stop();
  await plaza?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS_DIR, name) });

/** Marks the page's window; the mark survives client-side updates but not a reload. */
const mark = (page: Page, name: string) => page.evaluate((key) => void ((window as unknown as Record<string, boolean>)[key] = true), name);
const marked = (page: Page, name: string) => page.evaluate((key) => (window as unknown as Record<string, boolean>)[key] === true, name);

describe('a paid app from submission to a buyer opening it', () => {
  it('is submitted, rejected, resubmitted, approved, bought, and opened, each screen updating live', async () => {
    const developer = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    const reviewer = await personAt(browser!, plaza.origin, REVIEWER_EMAIL);
    const buyer = await personAt(browser!, plaza.origin, BUYER_EMAIL);
    const appPort = await freePort();
    const sampleAppOrigin = `https://localhost:${appPort}`;

    // 1. The developer submits the app through the form.
    await developer.goto(`${plaza.origin}/developer/new`);
    await developer.getByLabel('Name', { exact: true }).fill(APP_NAME);
    await developer.getByLabel('Short description').fill('Shows who opened it, and Premium once bought');
    await developer.getByLabel('App URL').fill(`${sampleAppOrigin}/`);
    await developer.getByLabel('Icon URL').fill(`${sampleAppOrigin}/assets/icon.png`);
    await developer.getByLabel('Long description (optional)').fill(LONG_DESCRIPTION);
    await developer.getByLabel('Screenshots (optional)').fill(`${screenshots!.origin}/light.png\n${screenshots!.origin}/dark.png`);
    await developer.getByLabel('Support page (optional)').fill(`${sampleAppOrigin}/`);
    await developer.getByLabel('Privacy policy (optional)').fill(`${sampleAppOrigin}/`);
    await developer.getByLabel('Category').selectOption('productivity');
    await developer.getByLabel('Paid').check();
    await developer.getByLabel('Price (points)').fill(String(PRICE));
    await developer.getByLabel('Webhook URL (optional)').fill(`${sampleAppOrigin}/webhooks/plaza`);
    await shot(developer, 'submit-app.png');
    await developer.getByRole('button', { name: 'Submit for review' }).click();
    await developer.waitForURL(/\/developer\/apps\/[^/]+$/);
    const appId = decodeURIComponent(new URL(developer.url()).pathname.split('/').pop()!);
    await developer.getByRole('heading', { name: APP_NAME }).waitFor();

    // The client secret, revealed with the key button, configures the sample app.
    await developer.getByRole('button', { name: 'Reveal client secret' }).click();
    await developer.getByRole('button', { name: 'Hide' }).waitFor();
    const clientSecret = (await developer.getByTestId('client-secret').textContent())!.trim();
    expect(clientSecret.length).toBeGreaterThan(10);
    await developer.getByRole('button', { name: 'Hide' }).click();
    sampleApp = await startSampleApp({ port: appPort, platformOrigin: plaza.origin, appId, clientSecret });
    await developer.getByText('No decision yet.').waitFor();
    await mark(developer, 'developerAppBeforeRejection');

    // 2. The reviewer finds it in the queue and rejects it with a reason and a note.
    await reviewer.goto(`${plaza.origin}/review`);
    await reviewer.getByRole('link', { name: APP_NAME }).click();
    await reviewer.waitForURL(`**/review/${appId}`);
    await reviewer.getByLabel('Reject', { exact: true }).check();
    await reviewer.getByLabel('The description is misleading').check();
    await reviewer.getByLabel('Note to the developer').fill('Say what the app does, not what it might do one day.');
    await shot(reviewer, 'review-page.png');
    await reviewer.getByRole('button', { name: 'Reject app' }).click();

    // 3. The developer's open page shows the rejection without a reload.
    await developer.getByText('The description is misleading', { exact: true }).waitFor({ timeout: 15_000 });
    await developer.getByText('Say what the app does, not what it might do one day.', { exact: true }).waitFor();
    await developer.getByRole('button', { name: 'Edit and resubmit' }).waitFor();
    expect(await marked(developer, 'developerAppBeforeRejection')).toBe(true);
    await shot(developer, 'developer-app-rejected.png');

    // 4. The developer edits and resubmits; the reviewer approves.
    await developer.getByRole('button', { name: 'Edit and resubmit' }).click();
    await developer.getByLabel('Short description').fill('Shows who opened it, in their language and theme');
    await developer.getByRole('button', { name: 'Save and resubmit' }).click();
    await developer
      .getByText('Pending review', { exact: true })
      .or(developer.getByRole('button', { name: 'Edit', exact: true }))
      .first()
      .waitFor();

    await reviewer.goto(`${plaza.origin}/review/${appId}`);
    await reviewer.getByText('Shows who opened it, in their language and theme').first().waitFor();
    await reviewer.getByLabel('Approve', { exact: true }).check();
    await reviewer.getByRole('button', { name: 'Approve app' }).click();
    await developer.getByText('Approved', { exact: true }).first().waitFor({ timeout: 15_000 });

    // 5. An admin credits the buyer; the developer watches Webhook Logs while the buyer buys in the store.
    const admin = await PlazaApi.signIn(plaza.origin, ADMIN_EMAIL);
    const buyerApi = await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
    await admin.ok(`mutation Credit($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "e2e: buy the sample app") { points } }`, { userId: buyerApi.userId });

    await developer.goto(`${plaza.origin}/developer/webhooks?appId=${encodeURIComponent(appId)}`);
    await developer.getByRole('heading', { name: 'Webhook Logs' }).waitFor();
    await developer.getByText(/^No deliveries for this app yet/).waitFor();
    await mark(developer, 'webhookLogsBeforePurchase');

    await buyer.goto(`${plaza.origin}/`);
    await buyer.getByText(APP_NAME).first().waitFor();
    await shot(buyer, 'store.png');
    await buyer.goto(`${plaza.origin}/store/${appId}`);
    await buyer.getByText(`Your balance: 100 points`).waitFor();
    // The listing's page details, as the reviewer approved them: the long description, the screenshots, what the app receives.
    await buyer.getByRole('region', { name: 'About this app' }).getByText('Its source shows the launch handshake', { exact: false }).waitFor();
    const strip = buyer.getByRole('region', { name: 'Screenshots' });
    expect(await strip.getByRole('img').count()).toBe(2);
    // The strip's images load lazily; the picture shows them.
    await strip.scrollIntoViewIfNeeded();
    await strip
      .getByRole('img')
      .evaluateAll((images: HTMLImageElement[]) =>
        Promise.all(images.map((image) => (image.complete ? Promise.resolve() : new Promise((resolve) => image.addEventListener('load', resolve, { once: true }))))),
      );
    await buyer.getByRole('region', { name: 'What this app receives' }).getByText('app.purchased').waitFor();
    // The whole page, header to what the app receives (taller than the others' 800 px).
    await buyer.evaluate(() => window.scrollTo(0, 0));
    await buyer.screenshot({ path: path.join(SCREENSHOTS_DIR, 'store-listing.png'), fullPage: true });
    await buyer.getByRole('button', { name: `Buy for ${PRICE} points` }).click();
    // Buying asks first, with the price and the balance (issue 17, finding 5), and then says Purchased.
    await buyer.getByRole('button', { name: `Confirm: pay ${PRICE} points` }).click();
    await buyer.getByText(`Purchased ${APP_NAME} for ${PRICE} points. Your balance is now ${100 - PRICE} points.`).waitFor();

    // 6. The delivery appears and succeeds on the open Webhook Logs page.
    const row = developer.locator('tr', { hasText: 'app.purchased' });
    await row.waitFor({ timeout: 15_000 });
    await row.getByText('Succeeded').waitFor({ timeout: 15_000 });
    expect(await marked(developer, 'webhookLogsBeforePurchase')).toBe(true);
    await shot(developer, 'webhook-logs.png');
    await row.getByRole('link').click();
    await developer.waitForURL(/\/developer\/webhooks\/[^/?]+$/);
    await developer.getByText('Body sent').waitFor();
    await developer
      .getByText(/Attempt 1/)
      .first()
      .waitFor();
    await shot(developer, 'delivery-detail.png');

    // 7. The buyer opens the app: it knows who opened it, and the purchase webhook made it Premium.
    await buyer.goto(`${plaza.origin}/apps/${appId}/open`);
    const app = buyer.frameLocator(`iframe[title="${APP_NAME}"]`);
    await app.getByText(`Opened by ${buyerApi.userId}`, { exact: true }).waitFor();
    await app.getByText('Premium', { exact: true }).waitFor({ timeout: 15_000 });
    await buyer.getByRole('status').getByText(`${APP_NAME} is open.`).waitFor();
    await shot(buyer, 'app-open.png');
  });
});
