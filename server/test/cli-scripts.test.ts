import { beforeAll, describe, expect, it } from 'vitest';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { cliFor, jsonLines, type RunCli } from './helpers/cli.js';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

// A CLI that scripts can trust (issue 28, section 3): exit codes 0/1/3, results on stdout and diagnostics on
// stderr, one line for a failure. The real `plaza` binary against a real Plaza and real receivers.

const REVOKE = 'mutation($id: ID!) { revokeApiToken(id: $id) }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let receiver: WebhookReceiver;
let cli: RunCli;

beforeAll(async () => {
  // One quick retry, so a delivery to a failing receiver is FAILED within a second (for recover).
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '2s' });
  developer = await plaza.signIn('cli-scripts@studio.test');
  receiver = await WebhookReceiver.start(() => ({ status: 200 }));
  cli = await cliFor(plaza.url, developer);
});

const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '' && !/^(Watching|Forwarding|Stopped)/.test(line.trim()));

describe('a token revoked while a live command runs', () => {
  it.each([
    ['tail', (appId: string) => ['tail', '--app', appId], 'Watching the deliveries'],
    ['listen', (appId: string) => ['listen', '--app', appId, '--forward-to', 'http://127.0.0.1:9/hook'], 'Forwarding'],
  ])('%s says so in one line on stderr and exits 1', async (_name, args, started) => {
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const cli: RunCli = await cliFor(plaza.url, developer);
    const running = cli.start(args(app.id));
    await running.waitFor('stderr', started);
    await developer.ok(REVOKE, { id: cli.token.id });
    expect(await running.exited).toBe(1);
    // graphql-ws printed the whole CloseEvent (about 140 lines) with console.error before the CLI's own line.
    expect(errorLines(running.out.stderr)).toEqual([
      'Error: Plaza closed the live connection: the credential was revoked; run plaza login (or set PLAZA_TOKEN) with a valid token',
    ]);
    expect(running.out.stdout).toBe('');
  });
});

describe('plaza trigger', () => {
  it('with no listener running says nobody received it and exits 3; --json gives the count of recipients', async () => {
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const alone = await cli(['trigger', 'app.purchased', '--app', app.id]);
    expect(alone.code).toBe(3);
    expect(alone.stdout).toBe('');
    expect(alone.stderr).toMatch(new RegExp(`^Nobody received the test app.purchased \\(dlv_\\w+\\): no plaza listen session of ${app.id} is running`));
    const json = await cli(['trigger', 'app.installed', '--app', app.id, '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ eventName: 'app.installed', recipients: 0 });

    const local = await WebhookReceiver.start(() => ({ status: 204 }));
    const listener = cli.start(['listen', '--app', app.id, '--forward-to', local.url('/hook')]);
    await listener.waitFor('stderr', 'Forwarding');
    await plaza.waitForSubscriptions(2);
    const heard = await cli(['trigger', 'app.purchased', '--app', app.id, '--json']);
    expect(heard.code).toBe(0);
    const triggered = JSON.parse(heard.stdout);
    expect(triggered).toMatchObject({ recipients: 1 });
    await listener.waitFor('stdout', triggered.deliveryId);
    expect((await cli(['trigger', 'app.test', '--app', app.id])).stdout).toContain('sent to 1 plaza listen session, never to its webhook URL');
    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(0);
  });
});

describe('plaza listen', () => {
  it('on an app without a webhook URL says real events will not come until one is set, and still forwards a triggered one', async () => {
    const app = await submitApp(developer, { webhookUrl: null });
    const local = await WebhookReceiver.start(() => ({ status: 204 }));
    const listener = cli.start(['listen', '--app', app.id, '--forward-to', local.url('/hook')]);
    await listener.waitFor('stderr', `${app.id} has no webhook URL: real events will not come until one is set (in the portal); test events from plaza trigger still do`);
    await plaza.waitForSubscriptions(2);
    const trigger = await cli(['trigger', 'app.installed', '--app', app.id, '--json']);
    await listener.waitFor('stdout', JSON.parse(trigger.stdout).deliveryId);
    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(0);

    const withUrl = await submitApp(developer, { webhookUrl: receiver.url() });
    const quiet = cli.start(['listen', '--app', withUrl.id, '--forward-to', local.url('/hook')]);
    await quiet.waitFor('stderr', 'Forwarding');
    quiet.child.kill('SIGINT');
    expect(await quiet.exited).toBe(0);
    expect(quiet.out.stderr).not.toContain('no webhook URL');
  });

  it('--since with --events counts and forwards only those events', async () => {
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const purchased = [];
    for (let i = 0; i < 2; i++) purchased.push(await emitEvent(plaza, app.id, { type: WebhookEventType.APP_PURCHASED }));
    for (let i = 0; i < 3; i++) await emitEvent(plaza, app.id, { type: WebhookEventType.APP_INSTALLED });
    const local = await WebhookReceiver.start(() => ({ status: 204 }));
    const listener = cli.start(['listen', '--app', app.id, '--forward-to', local.url('/since'), '--since', '10m', '--events', 'app.purchased']);
    for (const d of purchased) await listener.waitFor('stdout', d.id);
    // The catch-up said 5 (every delivery since then) and forwarded 2.
    expect(listener.out.stderr).toContain('Catching up: 2 deliveries made since');
    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(0);
    expect(local.requests.map((r) => r.headers['x-platform-delivery']).sort()).toEqual(purchased.map((d) => d.id).sort());
  });
});

describe('redeliver and recover show each outcome on stdout', () => {
  it('redeliver prints the attempt it sent and its outcome on stdout', async () => {
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    const run = await cli(['redeliver', delivery.id]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Sent ${delivery.id} again \\(attempt 2\\): SUCCEEDED, 200 \\d+ms\\n$`));
  });

  it('recover prints one line per delivery with the outcome of the attempt it caused', async () => {
    let up = false;
    const flaky = await WebhookReceiver.start(() => ({ status: up ? 200 : 503 }));
    const app = await submitApp(developer, { webhookUrl: flaky.url() });
    const failed = [await emitEvent(plaza, app.id), await emitEvent(plaza, app.id)];
    for (const d of failed) await waitForDelivery(developer, d.id, (x) => x.status === 'FAILED');
    up = true;
    const run = await cli(['recover', '--app', app.id, '--since', '10m']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const d of failed) expect(lines.find((line) => line.startsWith(d.id))).toMatch(/app\.purchased\s+SUCCEEDED\s+attempt 3\s+200 \d+ms$/);
    expect(run.stderr).toContain(`Recovered ${app.id}: 2/2 sent: 2 succeeded, 0 failed`);
  });
});

describe('plaza test', () => {
  it('sends a test event to the real webhook URL and exits 0 when the receiver took it, 3 when it did not', async () => {
    let status = 200;
    const real = await WebhookReceiver.start(() => ({ status }));
    const app = await submitApp(developer, { webhookUrl: real.url('/hooks') });
    const ok = await cli(['test', 'app.purchased', '--app', app.id]);
    expect(ok, ok.stderr).toMatchObject({ code: 0 });
    expect(ok.stdout).toMatch(new RegExp(`^Test app.purchased dlv_\\w+ \\(ep_\\w+\\) to ${real.url('/hooks').replace(/[.?]/g, '\\$&')}: SUCCEEDED, 200 \\d+ms\\n$`));
    expect(real.requests).toHaveLength(1);
    expect(real.requests[0]!.headers['x-platform-test']).toBe('true');

    status = 500;
    const failed = await cli(['test', 'app.test', '--app', app.id, '--json']);
    expect(failed.code).toBe(3);
    const delivery = JSON.parse(failed.stdout);
    expect(delivery).toMatchObject({ eventName: 'app.test', status: 'FAILED', attemptCount: 1, attempts: [expect.objectContaining({ statusCode: 500 })] });
    expect(real.requests).toHaveLength(2);

    const noUrl = await submitApp(developer, { webhookUrl: null });
    const refused = await cli(['test', 'app.test', '--app', noUrl.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('Error: This app has no webhook URL; set one before sending a test event (webhookUrl)');
    const badEvent = await cli(['test', 'app.bought', '--app', app.id]);
    expect(badEvent.code).toBe(1);
    expect(badEvent.stderr).toContain('<event> must be one of');
  });
});

describe('plaza tokens and plaza secret need a sign-in token', () => {
  it('create, list and revoke API tokens with a sign-in token; the created one works with plaza and is refused once revoked', async () => {
    const env = { PLAZA_TOKEN: developer.token };
    const created = await cli(['tokens', 'create', '--name', 'ci deploys', '--scope', 'apps:read', '--expires-in-days', '7'], env);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const token = created.stdout.trim();
    expect(token).toMatch(/^plz_at_\S+$/);
    expect((await cli(['apps', '--json'], { PLAZA_TOKEN: token })).code).toBe(0);

    const listed = await cli(['tokens', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    const mine = jsonLines(listed.stdout).find((t) => t.name === 'ci deploys')!;
    expect(mine).toMatchObject({ scopes: ['apps:read'], revokedAt: null, tokenPrefix: token.slice(0, 11) });
    const table = await cli(['tokens', 'list'], env);
    expect(table.stdout).toMatch(new RegExp(`${mine.id}\\s+ci deploys\\s+\\S+\\s+apps:read\\s.*active`));

    const revoked = await cli(['tokens', 'revoke', mine.id], env);
    expect(revoked, revoked.stderr).toMatchObject({ code: 0 });
    expect((await cli(['apps'], { PLAZA_TOKEN: token })).code).toBe(1);
    expect(jsonLines((await cli(['tokens', 'list', '--json'], env)).stdout).find((t) => t.id === mine.id)?.revokedAt).toEqual(expect.any(String));
  });

  it.each([
    [['tokens', 'list'], 'plaza tokens needs a sign-in token, and PLAZA_TOKEN is an API token, which Plaza refuses for this: manage them at'],
    [['tokens', 'create', '--name', 'x'], 'plaza tokens needs a sign-in token, and PLAZA_TOKEN is an API token, which Plaza refuses for this: manage them at'],
    [
      ['secret', 'rotate', '--app', 'app_01NOSUCHAPP000000000000000'],
      'plaza secret needs a sign-in token, and PLAZA_TOKEN is an API token, which Plaza refuses for this: rotate it in the portal',
    ],
    [
      ['secret', 'finish', '--app', 'app_01NOSUCHAPP000000000000000'],
      'plaza secret needs a sign-in token, and PLAZA_TOKEN is an API token, which Plaza refuses for this: rotate it in the portal',
    ],
  ])('%j with an API token says so in one line and exits 1', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Error: ${message}`);
    expect(lines[0]).toContain('or set PLAZA_TOKEN to a sign-in token');
  });
});

describe('exit codes and streams', () => {
  it('help and version exit 0 on stdout; an unknown command or a missing option exits 1 on stderr', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['test', 'webhook', 'tokens', 'secret', 'trigger', 'listen']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect((await cli(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const unknown = await cli(['bogus']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain("unknown command 'bogus'");
    const missing = await cli(['webhook', 'enable']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("required option '--app <id>' not specified");
  });
});
