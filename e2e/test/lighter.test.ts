import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt, visitorAt } from '../support/browser.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27, "lighter": the store and the developer portal load only their own code.

/** Script a visitor's first load of the store fetched before pages were split (4b8dae7: one 676,339-byte entry and the 726-byte runtime), decoded. */
const STORE_SCRIPT_BEFORE = 677_065;
/** Chunks of pages a store visitor never sees. */
const PORTAL_CHUNKS =
  /\/(MyAppsPage|SubmitAppPage|DeveloperAppPage|ApiTokensPage|WebhookLogsPage|DeliveryDetailPage|ReviewQueuePage|ReviewPage|AdminPage|GraphiQLPage|draw-chart)-/;
const DEVELOPER_EMAIL = 'lighter.dev@plaza.test';

let plaza: PlazaProcess;
let browser: Browser | undefined;

beforeAll(async () => {
  plaza = await startPlaza();
  const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  await publishApp(developer, reviewer, { name: 'Featherweight', appUrl: 'https://featherweight.example/' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

/** The scripts this document loaded (from the network or the cache), with their decoded and transferred sizes. */
const scriptsOf = (page: Page) =>
  page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
      .map((entry) => ({ path: new URL(entry.name).pathname, decoded: entry.decodedBodySize, encoded: entry.encodedBodySize })),
  );

describe('the store’s first load', () => {
  it('fetches no developer-portal code and at most 80% of the script it did when one bundle served both', async () => {
    const page = await visitorAt(browser!);
    await page.goto(plaza.origin);
    await page.locator('.app-card').first().waitFor();
    const scripts = await scriptsOf(page);
    expect(scripts.filter((script) => PORTAL_CHUNKS.test(script.path)).map((script) => script.path)).toEqual([]);
    const decoded = scripts.reduce((sum, script) => sum + script.decoded, 0);
    const encoded = scripts.reduce((sum, script) => sum + script.encoded, 0);
    console.info(
      `store first load: ${scripts.length} scripts, ${decoded} bytes decoded (${Math.round((100 * decoded) / STORE_SCRIPT_BEFORE)}% of ${STORE_SCRIPT_BEFORE}), ${encoded} over the wire`,
    );
    expect(decoded).toBeLessThanOrEqual(0.8 * STORE_SCRIPT_BEFORE);
  });

  it('the developer portal loads its own page and not the store’s', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer/webhooks`);
    await page.getByRole('heading', { name: 'Webhook Logs' }).waitFor();
    const paths = (await scriptsOf(page)).map((script) => script.path);
    expect(paths.filter((path) => /\/WebhookLogsPage-/.test(path))).toHaveLength(1);
    expect(paths.filter((path) => /\/(StorePage|StoreAppPage|AdminPage|ReviewPage)-/.test(path))).toEqual([]);
  });
});
