import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery, WEBHOOK_REQUEST_HEADERS } from './helpers/webhooks.js';

// The real `plaza` binary, as `pnpm plaza` runs it; built by `pnpm build` (or `pnpm --filter @plaza/cli build`).
const CLI = resolve(import.meta.dirname, '../../packages/cli/dist/main.js');
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }';
const ALL_SCOPES = ['deliveries:read', 'deliveries:write', 'apps:read'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let token: string;
let receiver: WebhookReceiver;
let app: { id: string; name: string };
let configHome: string;

/** Runs the CLI to its end with only the environment given (plus PATH), as a user's shell would. */
function plaza_(args: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, PLAZA_URL: plaza.url, PLAZA_TOKEN: token, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** A long-running CLI (tail) whose output is collected as it comes. */
function start(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, PLAZA_URL: plaza.url, PLAZA_TOKEN: token, ...env },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const waitFor = (stream: 'stdout' | 'stderr', text: string, timeoutMs = 20_000) =>
    vi.waitFor(
      () => {
        if (!out[stream].includes(text)) throw new Error(`"${text}" did not appear on ${stream} within ${timeoutMs} ms; stdout: ${out.stdout}; stderr: ${out.stderr}`);
      },
      { timeout: timeoutMs, interval: 50 },
    );
  return { child, out, exited, waitFor };
}

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm --filter @plaza/cli build first`);
  configHome = await mkdtemp(join(tmpdir(), 'plaza-cli-'));
  // One quick retry, so a delivery to a failing receiver is FAILED within a second (for recover).
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '100ms' });
  developer = await plaza.signIn('cli@studio.test');
  receiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok' }));
  app = await submitApp(developer, { webhookUrl: receiver.url() });
  token = (await developer.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'plaza cli', scopes: ALL_SCOPES } })).createApiToken.token;
});

describe('plaza whoami and login', () => {
  it('names the account a good token signs in as', async () => {
    const run = await plaza_(['whoami']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cli@studio.test');
    const json = await plaza_(['whoami', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ email: 'cli@studio.test', id: developer.userId, url: plaza.url, tokenSource: 'PLAZA_TOKEN' });
  });

  it('refuses a bad token in one line that says to log in, with a non-zero exit', async () => {
    const run = await plaza_(['whoami'], { PLAZA_TOKEN: 'plz_not-a-real-token' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('Error: Your token was refused (UNAUTHENTICATED): run plaza login');
    expect(run.stdout).toBe('');
  });

  it('says the server is down, and where, when nothing answers', async () => {
    const url = `http://127.0.0.1:${await findFreePort()}`;
    const run = await plaza_(['apps'], { PLAZA_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`Error: Cannot reach Plaza at ${url}: is it running?`);
  });

  it('login checks the pasted token, stores it readable by the user alone, and whoami/logout use it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'plaza-login-'));
    const env = { XDG_CONFIG_HOME: home, PLAZA_TOKEN: undefined };
    expect((await plaza_(['whoami'], env)).stderr).toContain('You are not signed in');

    const refused = await plaza_(['login'], env, 'plz_wrong\n');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Your token was refused (UNAUTHENTICATED)');
    expect(existsSync(join(home, 'plaza', 'config.json'))).toBe(false);

    const login = await plaza_(['login'], env, `${token}\n`);
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`${plaza.url}/developer/tokens`);
    const file = join(home, 'plaza', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8')).tokens[plaza.url]).toBe(token);
    expect((await plaza_(['whoami'], env)).stdout).toContain('cli@studio.test');

    expect((await plaza_(['logout'], env)).code).toBe(0);
    expect((await plaza_(['whoami'], env)).code).toBe(1);
  });
});

describe('plaza apps, deliveries, redeliver, tail', () => {
  it('lists the developer’s apps with their status and webhook state', async () => {
    const run = await plaza_(['apps', '--json']);
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout)).toEqual([expect.objectContaining({ id: app.id, name: app.name, status: 'PENDING_REVIEW', webhookState: 'ENABLED', webhookUrl: receiver.url() })]);
    const table = await plaza_(['apps']);
    expect(table.stdout).toMatch(new RegExp(`${app.id}\\s+${app.name}\\s+PENDING_REVIEW\\s+ENABLED`));
    // Not a terminal and NO_COLOR unset: still no escape codes in a pipe.
    expect(table.stdout).not.toContain('\u001b[');
  });

  it('deliveries --json prints every delivery once, across pages, parseable line by line', async () => {
    const other = await submitApp(developer, { webhookUrl: receiver.url() });
    const made: string[] = [];
    for (let i = 0; i < 130; i += 1) made.push((await emitEvent(plaza, other.id, { type: i % 2 ? WebhookEventType.APP_INSTALLED : WebhookEventType.APP_PURCHASED })).id);
    const run = await plaza_(['deliveries', '--app', other.id, '--json']);
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    // All 130 once (two pages of 100), newest first; events of one millisecond may come in any order.
    expect(lines.map((d) => d.id).sort()).toEqual([...made].sort());
    expect(lines.map((d) => d.createdAt)).toEqual(
      lines
        .map((d) => d.createdAt)
        .sort()
        .reverse(),
    );
    expect(lines.every((d) => d.appId === other.id && typeof d.payload === 'string')).toBe(true);

    const limited = await plaza_(['deliveries', '--app', other.id, '--event', 'app.installed', '--limit', '20', '--json']);
    const installed = jsonLines(limited.stdout);
    expect(installed).toHaveLength(20);
    expect(new Set(installed.map((d) => d.id)).size).toBe(20);
    expect(installed.every((d) => d.eventName === 'app.installed' && made.includes(d.id))).toBe(true);

    const table = await plaza_(['deliveries', '--app', other.id, '--limit', '3']);
    expect(table.stdout.split('\n')[0]).toMatch(/^CREATED\s+ID\s+ENDPOINT\s+EVENT\s+STATUS/);
    expect(table.stdout.trim().split('\n')).toHaveLength(4);
    expect(table.stdout).toContain(lines[0]!.id);
  });

  it('says which flag is wrong, and that an app is unknown, changing nothing', async () => {
    const badStatus = await plaza_(['deliveries', '--status', 'lost']);
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr.trim()).toBe('Error: --status must be one of pending, retrying, succeeded, failed, not "lost"');
    const unknown = await plaza_(['deliveries', '--app', 'app_01NOSUCHAPP000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown app app_01NOSUCHAPP000000000000000');
    const missing = await plaza_(['tail']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("required option '--app <id>' not specified");
  });

  it('redeliver sends the same delivery again to the webhook URL', async () => {
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    const before = receiver.requests.filter((r) => r.headers['x-platform-delivery'] === delivery.id);
    expect(before).toHaveLength(1);
    const run = await plaza_(['redeliver', delivery.id, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: delivery.id });
    await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 2 && d.attempts[1].finished);
    const sent = receiver.requests.filter((r) => r.headers['x-platform-delivery'] === delivery.id);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.rawBody.equals(sent[0]!.rawBody)).toBe(true);
    expect(sent[1]!.headers['x-platform-attempt']).toBe('2');
  });

  it('recover sends the failed deliveries since a time again and reports each one back', async () => {
    let up = false;
    const flaky = await WebhookReceiver.start(() => ({ status: up ? 200 : 503 }));
    const broken = await submitApp(developer, { webhookUrl: flaky.url() });
    const failed = [await emitEvent(plaza, broken.id), await emitEvent(plaza, broken.id), await emitEvent(plaza, broken.id)];
    for (const d of failed) await waitForDelivery(developer, d.id, (x) => x.status === 'FAILED');
    up = true;
    const run = await plaza_(['recover', '--app', broken.id, '--since', '10m']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Recovered ${broken.id}: 3/3 sent: 3 succeeded, 0 failed`);
    for (const d of failed) expect((await waitForDelivery(developer, d.id, isFinal)).status).toBe('SUCCEEDED');
    const again = await plaza_(['recover', '--app', broken.id, '--since', '10m', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ appId: broken.id, deliveriesQueued: 0 });
  });

  it('tail shows a new delivery live and ends cleanly on Ctrl-C', async () => {
    const tail = start(['tail', '--app', app.id]);
    await tail.waitFor('stderr', 'Watching the deliveries');
    const delivery = await emitEvent(plaza, app.id, { type: WebhookEventType.APP_REFUNDED });
    await tail.waitFor('stdout', delivery.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    await tail.waitFor('stdout', 'SUCCEEDED');
    expect(tail.out.stdout).toContain('app.refunded');
    tail.child.kill('SIGINT');
    expect(await tail.exited).toBe(0);
    expect(tail.out.stderr).toContain('Stopped.');
  });
});

describe('plaza verify', () => {
  it('accepts a real delivery captured at the receiver and refuses a wrong secret or a changed body', async () => {
    const { revealClientSecret } = await developer.ok<{ revealClientSecret: { value: string } }>('mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }', {
      appId: app.id,
    });
    const delivery = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, delivery.id, isFinal);
    const request = receiver.requests.find((r) => r.headers['x-platform-delivery'] === delivery.id)!;
    const dir = await mkdtemp(join(tmpdir(), 'plaza-verify-'));
    const body = join(dir, 'body.json');
    await writeFile(body, request.rawBody);
    const headers = ['x-platform-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].flatMap((name) => ['--header', `${name}: ${String(request.headers[name])}`]);

    const good = await plaza_(['verify', '--secret', revealClientSecret.value, '--body', body, ...headers, '--json']);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ valid: true, xPlatformSignature: 'valid', standardWebhooks: 'valid', withinTolerance: true });

    const wrongSecret = await plaza_(['verify', '--secret', 'not-the-secret', '--body', body, ...headers]);
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stdout).toMatch(/X-Platform-Signature: invalid/);
    expect(wrongSecret.stdout).toMatch(/webhook-signature: +invalid/);

    await writeFile(body, request.rawBody.toString('utf8').replace('"amount_vnd":50000', '"amount_vnd":50001'));
    const tampered = await plaza_(['verify', '--secret', revealClientSecret.value, '--body', body, ...headers, '--json']);
    expect(tampered.code).toBe(1);
    expect(JSON.parse(tampered.stdout)).toMatchObject({ valid: false, xPlatformSignature: 'invalid', standardWebhooks: 'invalid' });
  });
});

describe('plaza listen and plaza trigger', () => {
  const LOCAL_FORWARDS = 'query($id: ID!) { webhookLocalForwards(deliveryId: $id) { deliveryId appId test statusCode durationMs error } }';
  let secret: string;
  let local: WebhookReceiver;

  const atWebhookUrlHeaders = (request: { headers: Record<string, unknown> }) =>
    Object.keys(request.headers)
      .filter((name) => name !== 'connection')
      .sort();

  /** Both signature schemes, checked with the libraries receivers use rather than Plaza's own code. */
  const signedForApp = async (request: { rawBody: Buffer; headers: Record<string, unknown> }) => {
    const body = request.rawBody.toString('utf8');
    const platform = await octokitVerify(secret, body, String(request.headers['x-platform-signature']));
    const standard = new StandardWebhook(secret.slice('whsec_'.length)).verify(body, request.headers as Record<string, string>);
    return platform && standard !== undefined;
  };

  beforeAll(async () => {
    secret = (await developer.ok<{ revealClientSecret: { value: string } }>('mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }', { appId: app.id }))
      .revealClientSecret.value;
    local = await WebhookReceiver.start(() => ({ status: 204 }));
  });

  it('forwards a real delivery and a triggered event byte for byte, validly signed; the webhook URL gets only the real one', async () => {
    const listener = start(['listen', '--app', app.id, '--forward-to', local.url('/local/hook')]);
    await listener.waitFor('stderr', 'Forwarding');
    await plaza.waitForSubscriptions(2);
    const realBefore = receiver.requests.length;

    const purchase = await emitEvent(plaza, app.id, { type: WebhookEventType.APP_PURCHASED });
    await listener.waitFor('stdout', purchase.id);
    const trigger = await plaza_(['trigger', 'app.purchased', '--app', app.id, '--json']);
    expect(trigger.code).toBe(0);
    const triggered = JSON.parse(trigger.stdout) as { deliveryId: string; body: string };
    await listener.waitFor('stdout', triggered.deliveryId);
    expect(listener.out.stdout).toMatch(new RegExp(`${triggered.deliveryId}\\s+--> 204.*\\[test\\]`));

    const forwarded = await local.waitForRequests(2);
    const real = forwarded.find((r) => r.headers['x-platform-delivery'] === purchase.id)!;
    const test = forwarded.find((r) => r.headers['x-platform-delivery'] === triggered.deliveryId)!;
    expect(real.path).toBe('/local/hook');
    expect(await signedForApp(real)).toBe(true);
    expect(await signedForApp(test)).toBe(true);
    expect(test.headers['x-platform-test']).toBe('true');
    // Plaza's headers and the transport's own, nothing a browser-like client would add.
    const sentByPlaza = atWebhookUrlHeaders(real);
    expect(sentByPlaza).toEqual(WEBHOOK_REQUEST_HEADERS);
    expect(real.headers['x-platform-test']).toBeUndefined();
    expect(JSON.parse(test.rawBody.toString('utf8'))).toMatchObject({ event: 'app.purchased', app_id: app.id, purchase_id: expect.stringMatching(/^APP-\d+-TEST/) });
    expect(test.rawBody.toString('utf8')).toBe(triggered.body);

    // The real receiver: the real delivery, with the same body bytes; never the triggered one.
    const delivered = await waitForDelivery(developer, purchase.id, isFinal);
    const atWebhookUrl = receiver.requests.slice(realBefore);
    expect(atWebhookUrl.map((r) => r.headers['x-platform-delivery'])).toEqual([purchase.id]);
    expect(atWebhookUrl[0]!.rawBody.equals(real.rawBody)).toBe(true);
    expect(atWebhookUrlHeaders(real)).toEqual(atWebhookUrlHeaders(atWebhookUrl[0]!));
    for (const name of ['content-type', 'user-agent', 'x-platform-event', 'x-platform-delivery', 'webhook-id'])
      expect(real.headers[name], name).toBe(atWebhookUrl[0]!.headers[name]);
    expect(receiver.requests.some((r) => r.headers['x-platform-delivery'] === triggered.deliveryId)).toBe(false);

    // Reported back as local forwards, apart from the delivery's own attempts.
    const reports = (id: string) =>
      vi.waitFor(
        async () => {
          const { webhookLocalForwards } = await developer.ok<{ webhookLocalForwards: any[] }>(LOCAL_FORWARDS, { id });
          if (webhookLocalForwards.length === 0) throw new Error(`${id} was never reported`);
          return webhookLocalForwards;
        },
        { timeout: 10_000, interval: 50 },
      );
    expect(await reports(purchase.id)).toEqual([expect.objectContaining({ deliveryId: purchase.id, appId: app.id, test: false, statusCode: 204, error: null })]);
    expect(await reports(triggered.deliveryId)).toEqual([expect.objectContaining({ test: true, statusCode: 204 })]);
    expect(delivered).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
    expect(delivered.attempts.map((a: any) => a.url)).toEqual([receiver.url()]);

    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(0);
  });

  it('a listener killed and started again forwards the deliveries made while it was down', async () => {
    const first = start(['listen', '--app', app.id, '--forward-to', local.url('/again')]);
    await first.waitFor('stderr', 'Forwarding');
    const before = await emitEvent(plaza, app.id, { type: WebhookEventType.APP_INSTALLED });
    await first.waitFor('stdout', before.id);
    // Reported once its position is saved: killed earlier, it would be forwarded again (at least once, by design).
    await expect
      .poll(async () => (await developer.ok<{ webhookLocalForwards: unknown[] }>(LOCAL_FORWARDS, { id: before.id })).webhookLocalForwards.length, {
        timeout: 10_000,
        interval: 50,
        message: `${before.id} reported`,
      })
      .toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await first.exited;

    const missed = [await emitEvent(plaza, app.id, { type: WebhookEventType.APP_UNINSTALLED }), await emitEvent(plaza, app.id, { type: WebhookEventType.APP_REFUNDED })];
    const second = start(['listen', '--app', app.id, '--forward-to', local.url('/again')]);
    for (const d of missed) await second.waitFor('stdout', d.id);
    expect(second.out.stderr).toContain('Catching up');
    const atLocal = local.requests.filter((r) => r.path === '/again').map((r) => r.headers['x-platform-delivery']);
    // Each once: the one forwarded before the kill is not sent again.
    expect(atLocal.filter((id) => id === before.id)).toHaveLength(1);
    for (const d of missed) expect(atLocal.filter((id) => id === d.id)).toHaveLength(1);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('a listener whose connection drops forwards, once it is back, the deliveries made meanwhile', async () => {
    // A TCP relay in front of Plaza that can be cut, as a network drop or a server restart would.
    const sockets = new Set<Socket>();
    let up = true;
    const relay: Server = createServer((client) => {
      if (!up) return void client.destroy();
      const upstream = createConnection(Number(new URL(plaza.url).port), '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
    try {
      const listener = start(['listen', '--app', app.id, '--forward-to', local.url('/dropped')], {
        PLAZA_URL: relayUrl,
        XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), 'plaza-drop-')),
      });
      await listener.waitFor('stderr', 'Forwarding');
      up = false;
      sockets.forEach((s) => s.destroy());
      await listener.waitFor('stderr', 'Connection lost');
      const meanwhile = [await emitEvent(plaza, app.id, { type: WebhookEventType.APP_INSTALLED }), await emitEvent(plaza, app.id, { type: WebhookEventType.APP_UNINSTALLED })];
      up = true;
      await listener.waitFor('stderr', 'Reconnected', 30_000);
      for (const d of meanwhile) await listener.waitFor('stdout', d.id);
      const atLocal = local.requests.filter((r) => r.path === '/dropped').map((r) => r.headers['x-platform-delivery']);
      expect(atLocal.sort()).toEqual(meanwhile.map((d) => d.id).sort());
      listener.child.kill('SIGINT');
      expect(await listener.exited).toBe(0);
    } finally {
      up = false;
      sockets.forEach((s) => s.destroy());
      relay.close();
    }
  });

  it('refuses a bad local forward report field by field, storing nothing', async () => {
    const delivery = await emitEvent(plaza, app.id);
    const REPORT =
      'mutation($id: ID!, $statusCode: Int, $durationMs: Int!, $error: String) { reportLocalForward(deliveryId: $id, statusCode: $statusCode, durationMs: $durationMs, error: $error) { id } }';
    const cases: [Record<string, unknown>, string][] = [
      [{ statusCode: 42, durationMs: 5 }, 'statusCode'],
      [{ statusCode: 200, durationMs: -1 }, 'durationMs'],
      [{ statusCode: null, durationMs: 5 }, 'error'],
      [{ statusCode: null, durationMs: 5, error: 'x'.repeat(501) }, 'error'],
    ];
    for (const [variables, field] of cases) {
      const error = await developer.error(REPORT, { id: delivery.id, ...variables });
      expect(error.extensions, JSON.stringify(variables)).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    expect((await developer.ok<{ webhookLocalForwards: unknown[] }>(LOCAL_FORWARDS, { id: delivery.id })).webhookLocalForwards).toEqual([]);
    const stranger = await plaza.signIn('stranger@studio.test');
    expect((await stranger.error(REPORT, { id: delivery.id, statusCode: 200, durationMs: 5 })).extensions?.code).toBe('NOT_FOUND');
  });

  it('trigger refuses an unknown event, naming the ones there are', async () => {
    const run = await plaza_(['trigger', 'app.bought', '--app', app.id]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('Error: <event> must be one of app.purchased, app.installed, app.uninstalled, app.refunded, app.test, not "app.bought"');
  });
});
