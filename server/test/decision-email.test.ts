import { beforeAll, describe, expect, it } from 'vitest';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import type { AtLeast } from './helpers/lists.js';
import { startSmtpInbox, type ReceivedMail } from './helpers/smtp-inbox.js';

let inbox: ReceivedMail[] = [];
let plaza: TestPlaza;

beforeAll(async () => {
  const smtp = await startSmtpInbox();
  inbox = smtp.mail;
  plaza = await startTestPlaza({ SMTP_URL: smtp.url, SMTP_FROM: 'Plaza Review <review@plaza.test>' });
});

async function waitForMail<N extends number>(count: N): Promise<AtLeast<N, ReceivedMail>> {
  await expect.poll(() => inbox.length, { timeout: 5000, interval: 25, message: `e-mails arrived of the ${count} awaited` }).toBeGreaterThanOrEqual(count);
  // The poll above ends only once there are `count`.
  return inbox as AtLeast<N, ReceivedMail>;
}

describe('decision e-mails', () => {
  it('reach the developer through SMTP for a rejection and an approval', async () => {
    const developer = await plaza.signIn('mailme@studio.test');
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const app = await submitApp(developer, { name: 'Inbox Hero' });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['INVALID_ICON'] } });
    const [rejection] = await waitForMail(1);
    expect(rejection.to).toEqual(['mailme@studio.test']);
    expect(rejection.raw).toMatch(/^Subject: Changes needed: Inbox Hero/m);
    expect(rejection.raw).toMatch(/^From: Plaza Review <review@plaza.test>/m);
    expect(rejection.raw).toContain('the icon is not a valid image');

    await developer.ok('mutation($id: ID!) { updateApp(id: $id, input: { iconUrl: "https://apps.example.com/i2.png" }) { id } }', { id: app.id });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const [, approval] = await waitForMail(2);
    expect(approval.raw).toMatch(/^Subject: Approved: Inbox Hero/m);
  });
});
