import { afterAll, describe, expect, it } from 'vitest';
import { startPlaza, type RunningPlaza } from '../src/app/plaza.js';
import { loadConfig } from '../src/config.js';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { cliFor } from './helpers/cli.js';
import { submitApp } from './helpers/factories.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, TEST_ENCRYPTION_KEY } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

// `plaza trigger` behind a load balancer: the listen session is on one API process, the trigger answered by
// another. Both are Plaza API servers on one database, each with its own LISTEN connection (as two processes
// are); the count of listeners must cover both, or trigger says nobody received it and exits 3 while the
// session did receive it.

let second: RunningPlaza | undefined;
afterAll(async () => {
  await second?.stop();
});

describe('plaza trigger with two API processes', () => {
  it('counts a listen session on the other API process, and exits 0', async () => {
    const first = await startTestPlaza();
    second = await startPlaza(
      loadConfig({
        NODE_ENV: 'test',
        PORT: String(await findFreePort()),
        DATABASE_URL: first.databaseUrl,
        SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
        PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
        WEB_DIST_DIR: '/nonexistent',
        RUN_WORKER: 'false',
      }),
    );
    const developer = await first.signIn('two-apis-trigger@studio.test');
    const app = await submitApp(developer, { webhookUrl: null });
    const cli = await cliFor(first.url, developer);
    const local = await WebhookReceiver.start(() => ({ status: 204 }));

    // The session listens through the second process; the trigger goes to the first.
    const listener = cli.start(['listen', '--app', app.id, '--forward-to', local.url('/hook')], { PLAZA_URL: second.url });
    try {
      await listener.waitFor('stderr', 'Forwarding');
      await expect.poll(() => second!.services.pubSub.subscriptionCount, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(first.services.pubSub.subscriptionCount).toBe(0);

      const heard = await cli(['trigger', 'app.purchased', '--app', app.id, '--json']);
      expect(heard, heard.stderr).toMatchObject({ code: 0 });
      const triggered = JSON.parse(heard.stdout);
      expect(triggered).toMatchObject({ recipients: 1 });
      await listener.waitFor('stdout', triggered.deliveryId);
      await local.waitForRequests(1);
    } finally {
      listener.child.kill('SIGINT');
      await listener.exited;
    }

    // With the session gone from both, nobody is counted: exit 3 as before.
    await expect.poll(() => second!.services.pubSub.subscriptionCount, { timeout: 10_000 }).toBe(0);
    const alone = await cli(['trigger', 'app.test', '--app', app.id, '--json']);
    expect(alone.code).toBe(3);
    expect(JSON.parse(alone.stdout)).toMatchObject({ recipients: 0 });
  }, 60_000);
});
