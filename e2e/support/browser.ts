import { chromium, type Browser, type BrowserContextOptions, type Page, type Request } from 'playwright-core';
import { inject } from 'vitest';

/** The screens the tests look at: a laptop, and a phone held upright. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Debian's chromium (browser downloads cannot work here), trusting only the tests' certificate. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Accepts the sample app's certificate by its key, instead of ignoring every certificate error.
      `--ignore-certificate-errors-spki-list=${inject('e2eTls').spkiSha256}`,
    ],
  });
}

/**
 * Signs in through Plaza's own dev sign-in form, as a person would; the browser keeps the session cookie.
 * A refusal the form shows fails at once with its words; a sign-in that neither finishes nor is refused fails
 * with what the page showed and what became of the sign-in request, so a failure on a busy machine says why.
 */
export async function signInThroughPage(page: Page, plazaOrigin: string, email: string): Promise<void> {
  await page.goto(plazaOrigin);
  const emailField = page.getByLabel('E-mail address');
  await emailField.fill(email);
  const signInRequests: string[] = [];
  const recordRequest = (outcome: string) => (request: Request) => {
    if (new URL(request.url()).pathname === '/auth/dev/sign-in') signInRequests.push(outcome);
  };
  const sent = recordRequest('sent');
  const finished = recordRequest('answered');
  const failed = recordRequest('failed');
  page.on('request', sent);
  page.on('requestfinished', finished);
  page.on('requestfailed', failed);
  try {
    await page.getByRole('button', { name: 'Sign in' }).click();
    const signedIn = page.getByText(`Signed in as ${email}`);
    const refusal = page.locator('form.sign-in').getByRole('alert');
    try {
      await signedIn.or(refusal).first().waitFor();
    } catch (error) {
      const shown = await page.evaluate(() => document.querySelector('main')?.textContent?.slice(0, 300) ?? '(no main)').catch(() => '(page gone)');
      const typed = await emailField.inputValue({ timeout: 1000 }).catch(() => '(no e-mail field)');
      throw new Error(
        `Signing in as ${email} did not finish: at ${page.url()}, the sign-in request ${signInRequests.join(', ') || 'never made'}, the e-mail field holds "${typed}", the page shows: ${shown}`,
        { cause: error },
      );
    }
    if ((await signedIn.count()) === 0) throw new Error(`Signing in as ${email} was refused: ${await refusal.first().textContent()}`);
  } finally {
    page.off('request', sent);
    page.off('requestfinished', finished);
    page.off('requestfailed', failed);
  }
}

/** Chooses the language through the account menu, as a person would (it is saved for every later page); Escape closes the menu again. */
export async function chooseLanguage(page: Page, language: 'English' | 'Tiếng Việt'): Promise<void> {
  await page.getByRole('button', { name: /^(Signed in as|Đăng nhập với) / }).click();
  await page.getByLabel(language === 'English' ? 'Ngôn ngữ' : 'Language').selectOption({ label: language });
  await page.keyboard.press('Escape');
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language === 'English' ? 'en' : 'vi');
}

/** A page in a browser context of its own (own cookies, as another person's browser), signed out; a laptop screen unless `options` say otherwise. */
export async function visitorAt(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  return context.newPage();
}

/** A person at Plaza: a visitor's page, signed in as `email` through the page's dev sign-in form. Closing the browser closes it. */
export async function personAt(browser: Browser, plazaOrigin: string, email: string, options: BrowserContextOptions = {}): Promise<Page> {
  const page = await visitorAt(browser, options);
  await signInThroughPage(page, plazaOrigin, email);
  return page;
}

/** The scripts this document loaded (from the network or the cache), with their decoded and transferred sizes. */
export const scriptsOf = (page: Page) =>
  page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
      .map((entry) => ({ path: new URL(entry.name).pathname, decoded: entry.decodedBodySize, encoded: entry.encodedBodySize })),
  );
