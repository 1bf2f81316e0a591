import type { IncomingHttpHeaders } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17, finding 10: "Send test event" appeared only after choosing an app in Webhook Logs. The app's
// own page sends any event, and Webhook Logs says where to find it before an app is chosen.

const DEVELOPER_EMAIL = 'tester@studio.test';

let plaza: PlazaProcess;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startHttpsServer>>;
// Webhook requests only: the review's pre-checks also fetch the App URL and icon from this server.
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  plaza = await startPlaza();
  browser = await launchChromium();
  receiver = await startHttpsServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/webhooks/plaza') received.push({ headers: request.headers, body });
      response.writeHead(200).end('ok');
    });
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await plaza?.stop();
});

describe('a test event', () => {
  it('is sent from the app’s own page with the event chosen, and Webhook Logs says where to find it', async () => {
    const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
    const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    const appId = await publishApp(developer, reviewer, { name: 'Test Bench', appUrl: `${receiver.origin}/`, webhookUrl: `${receiver.origin}/webhooks/plaza` });
    const page = await personAt(browser, plaza.origin, DEVELOPER_EMAIL, { viewport: { width: 1280, height: 900 } });

    // Webhook Logs across all one's apps: no app to send to yet, so it says how.
    await page.goto(`${plaza.origin}/developer/webhooks`);
    await page.getByText('To send a test event, choose an app in the filters below', { exact: false }).waitFor();

    // The app's page: pick the event, send it, open the delivery it made.
    await page.goto(`${plaza.origin}/developer/apps/${encodeURIComponent(appId)}`);
    const testEvent = page.getByRole('region', { name: 'Send a test event' });
    await testEvent.getByLabel('Event to send').selectOption('APP_REFUNDED');
    await testEvent.getByRole('button', { name: 'Send test event' }).click();
    await testEvent.getByText('Sent app.refunded.').waitFor();
    // The panel says how the webhook answered, without opening the delivery (issue 27, a small finding).
    await expect.poll(() => testEvent.getByTestId('test-event-response').textContent(), { timeout: 20_000 }).toMatch(/^ Your webhook answered: HTTP 200 · [\d,]+ ms$/);
    await testEvent.getByRole('link', { name: /^Open delivery dlv_/ }).click();
    await page.waitForURL(/\/developer\/webhooks\/dlv_[^/?]+$/);

    // The app's server got that event, marked as a test.
    await expect.poll(() => received.length, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['x-platform-test']).toBe('true');
    expect(JSON.parse(received[0]!.body)).toMatchObject({ event: 'app.refunded', app_id: appId });
  });
});
