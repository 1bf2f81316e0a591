import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from '../support/accessibility.js';
import { DESKTOP, launchChromium, personAt, PHONE } from '../support/browser.js';
import { startFailingReceiver } from '../support/https-servers.js';
import { SCREENSHOTS_DIR } from '../support/paths.js';
import { PlazaApi, sendTestWebhook, submitWebhookApp } from '../support/plaza-api.js';
import { startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Finishing touches of issue 17 on a phone: tables that scroll sideways can be reached by keyboard, the
// recovery form's label is whole in Vietnamese, and the sections row shows that it scrolls.

const DEVELOPER_EMAIL = 'phone.dev@plaza.test';

let plaza: PlazaProcess;
let receiver: Awaited<ReturnType<typeof startFailingReceiver>> | undefined;
let browser: Browser | undefined;
let page: Page;
let developer: PlazaApi;
const ids = { app: '', delivery: '' };

beforeAll(async () => {
  plaza = await startPlaza();
  // A receiver that always fails, so the delivery collects attempts (each with its request headers).
  receiver = await startFailingReceiver();
  developer = await PlazaApi.signIn(plaza.origin, DEVELOPER_EMAIL);
  ids.app = await submitWebhookApp(developer, 'Pocket Hooks', `${receiver.origin}/fail`);
  ids.delivery = await sendTestWebhook(developer, ids.app);
  const { createApiToken } = await developer.ok<{ createApiToken: { id: string } }>(`mutation Token($input: CreateApiTokenInput!) { createApiToken(input: $input) { id } }`, {
    input: { name: 'Phone deliveries reader', scopes: ['deliveries:read', 'deliveries:write', 'apps:read'] },
  });
  // Revoked, so its row has no Revoke button: nothing in the table takes the focus that would let a keyboard scroll it.
  await developer.ok(`mutation Revoke($id: ID!) { revokeApiToken(id: $id) }`, { id: createApiToken.id });

  browser = await launchChromium();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  page = await personAt(browser, plaza.origin, DEVELOPER_EMAIL, { viewport: PHONE });
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await plaza?.stop();
});

/** The developer's saved preferences, as the account menu's switches save them; pages read them on load. */
const prefer = (preferences: { theme?: 'light' | 'dark'; locale?: 'en' | 'vi' }) =>
  developer.ok(`mutation Prefs($theme: String, $locale: String) { updatePreferences(theme: $theme, locale: $locale) { id } }`, preferences);

const logsPath = () => `/developer/webhooks?appId=${encodeURIComponent(ids.app)}`;

const visits: { name: string; path: () => string; ready: (page: Page) => Promise<unknown> }[] = [
  { name: 'Webhook Logs', path: logsPath, ready: (page) => page.locator('main .delivery-table tbody tr').first().waitFor() },
  { name: 'a delivery with attempts', path: () => `/developer/webhooks/${ids.delivery}`, ready: (page) => page.locator('main .header-table th').first().waitFor() },
  { name: 'API tokens', path: () => '/developer/tokens', ready: (page) => page.locator('main').getByText('Phone deliveries reader').first().waitFor() },
];

/** Sideways-scrolling table boxes that a keyboard cannot reach (not focusable) or that a screen reader cannot name. */
const unreachableScrollBoxes = (page: Page) =>
  page.$$eval('main .table-scroll', (boxes) =>
    boxes
      .filter((box) => {
        const named = box.getAttribute('aria-label')?.trim() || document.getElementById(box.getAttribute('aria-labelledby') ?? '')?.textContent?.trim();
        return !(box.tabIndex === 0 && box.getAttribute('role') === 'region' && named);
      })
      .map((box) => `a scrolling table box is not a focusable, named region: ${box.outerHTML.slice(0, 80)}`),
  );

describe('at 390 px', () => {
  it('passes axe on Webhook Logs, a delivery and API tokens in light and dark: every sideways-scrolling table is reachable by keyboard', async () => {
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await prefer({ theme, locale: 'en' });
      for (const visit of visits) {
        await page.goto(`${plaza.origin}${visit.path()}`);
        await visit.ready(page);
        // Data arriving after the first paint (attempts, live updates) is part of what people see.
        // Never idle within the timeout (a page that keeps asking): the checks below read what is drawn by then.
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await page.waitForFunction((expected) => document.documentElement.dataset.theme === expected, theme);
        found.push(...(await seriousAccessibilityViolations(page)).map((violation) => `${visit.name} (${theme}): ${violation}`));
        // axe judges only boxes that scroll now; a table that scrolls with longer data must be reachable too.
        found.push(...(await unreachableScrollBoxes(page)).map((box) => `${visit.name} (${theme}): ${box}`));
      }
    }
    expect(found).toEqual([]);
  });
});

/** Where the recovery form's label stands: cut off or not, and its words whole above its date field, inside the form. */
const recoveryLabel = (page: Page, text: string) =>
  page.evaluate((text) => {
    const label = [...document.querySelectorAll('main label')].find((element) => element.textContent?.trim() === text) as HTMLLabelElement | undefined;
    const field = label?.control ?? label?.querySelector('input');
    const form = label?.closest('form');
    if (!label || !field || !form) return { found: false };
    // The words only (the old markup held the field inside the label).
    const range = document.createRange();
    const words = [...label.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE);
    range.setStartBefore(words[0]!);
    range.setEndAfter(words[words.length - 1]!);
    const wordsBox = range.getBoundingClientRect();
    const fieldBox = field.getBoundingClientRect();
    const formBox = form.getBoundingClientRect();
    return {
      found: true,
      clipped: label.scrollWidth > label.clientWidth,
      aboveField: wordsBox.bottom <= fieldBox.top + 1,
      insideForm: wordsBox.left >= formBox.left - 1 && wordsBox.right <= formBox.right + 1,
    };
  }, text);

describe('the recovery form in Vietnamese', () => {
  it('shows its label whole, above its date field, at 1280 px and at 390 px', async () => {
    await prefer({ theme: 'light', locale: 'vi' });
    try {
      for (const viewport of [DESKTOP, PHONE]) {
        await page.setViewportSize(viewport);
        await page.goto(`${plaza.origin}${logsPath()}`);
        await page.getByText('Khôi phục lượt thất bại từ…').waitFor();
        const label = await recoveryLabel(page, 'Khôi phục lượt thất bại từ…');
        await page
          .locator('main form')
          .filter({ hasText: 'Khôi phục lượt thất bại từ…' })
          .screenshot({ path: path.join(SCREENSHOTS_DIR, `phone-layout-recovery-${viewport.width}-vi.png`) });
        expect({ width: viewport.width, ...label }).toEqual({ width: viewport.width, found: true, clipped: false, aboveField: true, insideForm: true });
      }
    } finally {
      await page.setViewportSize(PHONE);
    }
  });
});

/** What the sections row shows of its hidden links: whether it scrolls, the sides marked as hiding links, and the fade drawn. */
const sectionsRow = (page: Page) =>
  page.locator('.top-nav').evaluate((nav) => ({
    scrolls: nav.scrollWidth > nav.clientWidth,
    hiddenSides: [nav.hasAttribute('data-more-before') ? 'left' : '', nav.hasAttribute('data-more-after') ? 'right' : ''].filter(Boolean).join(' '),
    fade: getComputedStyle(nav).maskImage,
  }));

describe('the sections row', () => {
  it('fades the side where sections hide on a phone, and follows as it scrolls; no fade at 1280 px', async () => {
    await prefer({ theme: 'light', locale: 'vi' });
    try {
      await page.setViewportSize(PHONE);
      await page.goto(`${plaza.origin}/developer`);
      await page.locator('.top-nav a').first().waitFor();
      const start = await sectionsRow(page);
      await page.locator('.shell-header').screenshot({ path: path.join(SCREENSHOTS_DIR, 'phone-layout-sections-start-vi.png') });
      // Vietnamese section names are longer than a phone is wide: the row scrolls, its right side hides links.
      expect(start).toMatchObject({ scrolls: true, hiddenSides: 'right', fade: expect.stringContaining('gradient') });

      await page.locator('.top-nav').evaluate((nav) => nav.scrollTo({ left: nav.scrollWidth }));
      await page.waitForFunction(() => document.querySelector('.top-nav')?.hasAttribute('data-more-before'));
      const end = await sectionsRow(page);
      await page.locator('.shell-header').screenshot({ path: path.join(SCREENSHOTS_DIR, 'phone-layout-sections-end-vi.png') });
      expect(end).toMatchObject({ hiddenSides: 'left', fade: expect.stringContaining('gradient') });
      // The fade moved to the other side: the last section is not faded at the end of the row.
      expect(end.fade).not.toBe(start.fade);

      await page.setViewportSize(DESKTOP);
      await page.waitForFunction(() => !document.querySelector('.top-nav')?.hasAttribute('data-more-before'));
      expect(await sectionsRow(page)).toEqual({ scrolls: false, hiddenSides: '', fade: 'none' });
    } finally {
      await page.setViewportSize(PHONE);
    }
  });
});
