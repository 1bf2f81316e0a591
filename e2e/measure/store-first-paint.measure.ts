import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, scriptsOf, visitorAt } from '../support/browser.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// A measurement, not a test: `pnpm --filter @plaza/e2e measure:first-paint` with PLAZA_BASELINE_WEB_DIST set
// (vitest.measure.config.ts; `pnpm test` does not run it). The figures go in BENCHMARKS.md ("Web app: the
// store's first load"); lighter.test.ts holds what can be asserted (the bytes and chunks of the first load).

const DEVELOPER_EMAIL = 'paint.dev@plaza.test';

let plaza: PlazaProcess;
let browser: Browser | undefined;

beforeAll(async () => {
  plaza = await startPlaza();
  const developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  await publishApp(developer, await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL), { name: 'Featherweight', appUrl: 'https://featherweight.example/' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

/**
 * Another build of the web app (another checkout's web/dist) to compare the store's first paint with, on
 * this machine and in this session: set it to measure. Not a timed assertion: the machine is shared, so
 * the figures are medians of interleaved rounds, recorded in BENCHMARKS.md.
 */
const BASELINE_WEB_DIST = process.env.PLAZA_BASELINE_WEB_DIST;
if (!BASELINE_WEB_DIST) throw new Error("PLAZA_BASELINE_WEB_DIST must name the web/dist of the build to compare with (another checkout's, built)");
const PAINT_ROUNDS = Number(process.env.PLAZA_PAINT_ROUNDS ?? 12);

interface StorePaint {
  /** first-contentful-paint: the app shell index.html paints before any script runs. */
  fcp: number;
  /** The first app card in the document, ms from navigation start: the store's own first paint. */
  firstCard: number;
  /** The renderer's main-thread work for the load (CDP Performance: TaskDuration, ScriptDuration), ms. */
  task: number;
  script: number;
  decoded: number;
}

async function paintStore(origin: string): Promise<StorePaint> {
  const page = await visitorAt(browser!);
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.addInitScript(() => {
      new MutationObserver((_records, observer) => {
        if (!document.querySelector('.app-card')) return;
        (window as unknown as { firstCard: number }).firstCard = performance.now();
        observer.disconnect();
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto(origin);
    await page.locator('.app-card').first().waitFor();
    const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
    const metric = (name: string) => 1000 * (metrics.find((entry) => entry.name === name)?.value ?? Number.NaN);
    const timings = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      firstCard: (window as unknown as { firstCard: number }).firstCard,
    }));
    const decoded = (await scriptsOf(page)).reduce((sum, script) => sum + script.decoded, 0);
    return { ...timings, task: metric('TaskDuration'), script: metric('ScriptDuration'), decoded };
  } finally {
    await page.context().close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

describe('the store’s first paint on loopback, against a baseline build', () => {
  it('is measured for both builds in interleaved rounds', { timeout: 600_000 }, async () => {
    const baseline = await startPlaza(null, { WEB_DIST_DIR: BASELINE_WEB_DIST! });
    try {
      const developer = await PlazaApi.signIn(baseline.origin, DEVELOPER_EMAIL);
      await publishApp(developer, await PlazaApi.signIn(baseline.origin, REVIEWER_EMAIL), { name: 'Featherweight', appUrl: 'https://featherweight.example/' });
      const builds = { baseline: baseline.origin, current: plaza.origin };
      const runs: Record<keyof typeof builds, StorePaint[]> = { baseline: [], current: [] };
      // One load of each first, unmeasured: both servers' first answers (and chromium's) are slower.
      for (const origin of Object.values(builds)) await paintStore(origin);
      for (let round = 0; round < PAINT_ROUNDS; round++) {
        // Alternating which goes first, so neither always follows the other's work.
        const order = round % 2 ? (['current', 'baseline'] as const) : (['baseline', 'current'] as const);
        for (const name of order) runs[name].push(await paintStore(builds[name]));
      }
      const summary = Object.fromEntries(
        Object.entries(runs).map(([name, paints]) => [
          name,
          Object.fromEntries((['fcp', 'firstCard', 'task', 'script', 'decoded'] as const).map((key) => [key, Math.round(median(paints.map((paint) => paint[key])))])),
        ]),
      );
      console.info(`store first paint, medians of ${PAINT_ROUNDS} interleaved rounds (ms; decoded script bytes):\n${JSON.stringify(summary, null, 1)}`);
      expect(runs.baseline).toHaveLength(PAINT_ROUNDS);
      expect(runs.current).toHaveLength(PAINT_ROUNDS);
    } finally {
      await baseline.stop();
    }
  });
});
