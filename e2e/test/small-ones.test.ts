import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { launchChromium, personAt, PHONE } from '../support/browser.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 27's small ones: finding 5 (the webhook-event checkboxes overlapped their labels), 7 (on a phone
// the notifications panel opened off-screen to the left), and the smaller: rotation buttons that touched,
// "Recover failed since…" without presets, an empty library with no next step.

const DEVELOPER_EMAIL = 'small.dev@plaza.test';

let plaza: PlazaProcess;
let browser: Browser | undefined;
let developer: PlazaApi;
let appId = '';

beforeAll(async () => {
  plaza = await startPlaza();
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
  // Its approval is a notification in the developer's bell.
  appId = await publishApp(developer, reviewer, { name: 'Bell Ringer', appUrl: 'https://bell.example/' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  developer.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);

describe('the submit form’s webhook events', () => {
  it('finding 5: each checkbox sits before its event name, inside its label and the fieldset, in both languages and themes', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    try {
      for (const [theme, locale] of [
        ['light', 'en'],
        ['dark', 'vi'],
      ] as const) {
        await prefer({ theme, locale });
        await page.goto(`${plaza.origin}/developer/new`);
        await page.locator('main fieldset input[type="checkbox"]').first().waitFor();
        const boxes = await page.$$eval('main fieldset label.inline:has(input[type="checkbox"])', (labels) =>
          labels.map((label) => {
            const box = label.querySelector('input')!.getBoundingClientRect();
            const range = document.createRange();
            range.selectNodeContents(label);
            range.setStartAfter(label.querySelector('input')!);
            const words = range.getBoundingClientRect();
            const fieldset = label.closest('fieldset')!.getBoundingClientRect();
            return {
              name: label.textContent!.trim(),
              boxBeforeWords: box.right <= words.left + 0.5,
              boxWidth: Math.round(box.width),
              insideFieldset: label.getBoundingClientRect().right <= fieldset.right + 0.5,
            };
          }),
        );
        expect(boxes.map((box) => box.name)).toEqual(['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded']);
        for (const box of boxes) expect(box, `${theme} ${locale}`).toMatchObject({ boxBeforeWords: true, insideFieldset: true });
        for (const box of boxes) expect(box.boxWidth).toBeLessThan(30);
        expect(await seriousAccessibilityViolations(page)).toEqual([]);
      }
    } finally {
      await prefer({ theme: 'light', locale: 'en' });
      await page.context().close();
    }
  });
});

describe('notifications on a phone', () => {
  it('finding 7: at 390 px the panel is a sheet across the screen, wholly on it', async () => {
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL, { viewport: PHONE });
    await page.locator('.bell-button').click();
    const panel = page.locator('.bell-panel');
    await panel.locator('.notification-list li').first().waitFor();
    const box = (await panel.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    // Across the screen, not a narrow box pushed off its left edge.
    expect(box.width).toBeGreaterThan(PHONE.width - 20);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('the smaller ones', () => {
  it('rotation: "Finish rotation now" and "Rotate secret…" stand apart; Recover has presets; an empty library leads to the store', async () => {
    await developer.ok(`mutation Rotate($appId: ID!) { rotateClientSecret(appId: $appId, overlapHours: 24) { appId } }`, { appId });
    const page = await personAt(browser!, plaza.origin, DEVELOPER_EMAIL);
    await page.goto(`${plaza.origin}/developer/apps/${appId}`);
    await page.getByRole('button', { name: 'Reveal client secret' }).click();
    const finish = (await page.getByRole('button', { name: 'Finish rotation now' }).boundingBox())!;
    const rotate = (await page.getByRole('button', { name: 'Rotate secret…' }).boundingBox())!;
    expect(rotate.y - (finish.y + finish.height)).toBeGreaterThanOrEqual(8);

    await page.goto(`${plaza.origin}/developer/webhooks?appId=${appId}`);
    await page.getByRole('group', { name: 'Quick choices' }).getByRole('button', { name: '24 hours ago' }).click();
    const since = await page.getByLabel('Recover failed since…').inputValue();
    // The field holds local time to the minute: a day before now, give or take the minute it was pressed in.
    const chosen = await page.evaluate((value) => new Date(value).getTime(), since);
    expect(Math.abs(Date.now() - 24 * 3_600_000 - chosen)).toBeLessThan(120_000);
    expect(await page.getByRole('button', { name: 'Recover failed deliveries' }).isEnabled()).toBe(true);

    await page.goto(`${plaza.origin}/library`);
    const browse = page.getByRole('link', { name: 'Browse the store' });
    await browse.waitFor();
    expect(await browse.getAttribute('href')).toBe('/');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });
});
