import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';

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

/** Signs in through Plaza's own dev sign-in form, as a person would; the browser keeps the session cookie. */
export async function signInThroughPage(page: Page, plazaOrigin: string, email: string): Promise<void> {
  await page.goto(plazaOrigin);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(`Signed in as ${email}`).waitFor();
}
