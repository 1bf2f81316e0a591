import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, personAt } from '../support/browser.js';
import { PlazaApi } from '../support/plaza-api.js';
import { ADMIN_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';

// Issue 17, findings 1 and 9 for the admin view: an admin credits points and manages roles from the UI
// alone, finding people by e-mail, and the form says each problem once and refuses what is not a credit.

const BUYER_EMAIL = 'credited.buyer@example.com';
const HELPER_EMAIL = 'new.reviewer@example.com';

let plaza: PlazaProcess;
let browser: Browser;
let admin: Page;

const viewerOf = async (email: string) => (await (await PlazaApi.signIn(plaza.origin, email)).ok<{ me: { points: number; roles: string[] } }>('{ me { points roles } }')).me;

beforeAll(async () => {
  plaza = await startPlaza();
  browser = await launchChromium();
  // Both people exist once they have signed in.
  await PlazaApi.signIn(plaza.origin, BUYER_EMAIL);
  await PlazaApi.signIn(plaza.origin, HELPER_EMAIL);
  admin = await personAt(browser, plaza.origin, ADMIN_EMAIL, { viewport: { width: 1280, height: 900 } });
  await admin.goto(`${plaza.origin}/admin`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await plaza?.stop();
});

describe('the admin view', () => {
  it('credits points to a person found by e-mail, once, after showing who will be credited; refuses -5 with one message', async () => {
    const credit = admin.getByRole('region', { name: 'Credit points' });

    // A negative amount is not a credit: one message for the field, nothing sent.
    await credit.getByLabel('User’s e-mail').fill(BUYER_EMAIL);
    await credit.getByLabel('Points').fill('-5');
    await credit.getByLabel('Reason').fill('Goodwill');
    await credit.getByRole('button', { name: 'Continue' }).click();
    await credit.getByText('Enter a whole number of points greater than 0.').waitFor();
    expect(await credit.getByText('Enter a whole number of points greater than 0.').count()).toBe(1);
    expect((await viewerOf(BUYER_EMAIL)).points).toBe(0);

    // The confirmation names the person the e-mail found, with their balance, before anything is credited.
    await credit.getByLabel('Points').fill('25');
    await credit.getByRole('button', { name: 'Continue' }).click();
    await credit.getByText(`Credit 25 points to ${BUYER_EMAIL}`, { exact: false }).waitFor();
    expect((await viewerOf(BUYER_EMAIL)).points).toBe(0);
    await credit.getByRole('button', { name: 'Confirm credit' }).click();
    await credit.getByText(`Credited 25 points to ${BUYER_EMAIL}. New balance: 25 points.`).waitFor();

    // The form is empty again: a second click cannot credit the same person twice.
    expect(await credit.getByLabel('User’s e-mail').inputValue()).toBe('');
    expect(await credit.getByLabel('Points').inputValue()).toBe('');
    expect(await credit.getByRole('button', { name: 'Confirm credit' }).count()).toBe(0);
    expect((await viewerOf(BUYER_EMAIL)).points).toBe(25);
  });

  it('grants and revokes the reviewer role of a person found by e-mail', async () => {
    const users = admin.getByRole('region', { name: 'Users and roles' });
    await users.getByLabel('User’s e-mail').fill(HELPER_EMAIL);
    await users.getByRole('button', { name: 'Find user' }).click();
    await users.getByRole('button', { name: 'Grant Reviewer' }).click();
    await users.getByRole('status').getByText(`${HELPER_EMAIL} now has the Reviewer role`, { exact: false }).waitFor();
    expect((await viewerOf(HELPER_EMAIL)).roles).toContain('REVIEWER');

    await users.getByRole('button', { name: 'Revoke Reviewer' }).click();
    await users.getByRole('status').getByText(`${HELPER_EMAIL} no longer has the Reviewer role`, { exact: false }).waitFor();
    expect((await viewerOf(HELPER_EMAIL)).roles).not.toContain('REVIEWER');
  });
});
