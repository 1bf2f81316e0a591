import { beforeAll, describe, expect, it } from 'vitest';
import { cliFor, jsonLines, type RunCli } from './helpers/cli.js';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, waitForDelivery, waitForEngineIdle } from './helpers/webhooks.js';

// Issue 26's CLI: `plaza endpoints` lists, adds, pauses, resumes and removes an app's webhook endpoints, and
// `deliveries`, `tail`, `recover` and `test` take --endpoint. The real CLI, a real Plaza, real receivers.

const ENDPOINTS = `query($id: ID!) { app(id: $id) { webhookEndpoints { id url state } } }`;
const ok = () => ({ status: 200, body: 'ok' });

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let plazaCli: RunCli;
/** The same CLI with the developer's sign-in token (adding an endpoint refuses API tokens). */
let signedIn: (args: string[]) => ReturnType<RunCli>;

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '5s' });
  developer = await plaza.signIn('endpoints-cli@studio.test');
  plazaCli = await cliFor(plaza.url, developer);
  signedIn = (args) => plazaCli(args, { PLAZA_TOKEN: developer.token, NO_COLOR: '1' });
});

const endpointsOf = async (appId: string) =>
  (await developer.ok<{ app: { webhookEndpoints: { id: string; url: string; state: string }[] } }>(ENDPOINTS, { id: appId })).app.webhookEndpoints;

describe('plaza endpoints', () => {
  it('adds (sign-in token only), lists, pauses, resumes with recover --endpoint, and removes an endpoint; deliveries --endpoint shows its own', async () => {
    const [a, b] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(ok)]);
    const app = await submitApp(developer, { webhookUrl: a.url('/a') });

    // An API token is refused before asking, in one line saying what to do instead; nothing is added.
    const refused = await plazaCli(['endpoints', 'add', '--app', app.id, '--url', b.url('/b')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('plaza endpoints add needs a sign-in token, and PLAZA_TOKEN is an API token, which Plaza refuses for this');
    expect(await endpointsOf(app.id)).toHaveLength(1);

    const bad = await signedIn(['endpoints', 'add', '--app', app.id, '--url', b.url('/b'), '--events', 'app.bought']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--events must be one of');
    const added = await signedIn(['endpoints', 'add', '--app', app.id, '--url', b.url('/b'), '--description', 'backup', '--events', 'app.purchased,app.refunded', '--rate', '5']);
    expect(added, added.stderr).toMatchObject({ code: 0 });
    const id = added.stdout.trim();
    expect(id).toMatch(/^ep_[0-9A-Z]{26}$/);
    expect(added.stderr).toContain(`Added ${id} to ${app.id}: ${b.url('/b')}, app.purchased,app.refunded, 5/s`);

    const listed = await plazaCli(['endpoints', '--app', app.id, '--json']);
    expect(listed, listed.stderr).toMatchObject({ code: 0 });
    expect(jsonLines(listed.stdout).map((e) => [e.url, e.state, e.events, e.rateLimitPerSecond, e.description])).toEqual([
      [a.url('/a'), 'ENABLED', ['APP_PURCHASED', 'APP_INSTALLED', 'APP_UNINSTALLED', 'APP_REFUNDED'], null, null],
      [b.url('/b'), 'ENABLED', ['APP_PURCHASED', 'APP_REFUNDED'], 5, 'backup'],
    ]);
    const table = await plazaCli(['endpoints', '--app', app.id], { NO_COLOR: '1' });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATE\s+URL\s+EVENTS\s+PACE\s+DESCRIPTION$/);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+ENABLED\\s+${b.url('/b').replace(/[.]/g, '\\.')}\\s+app\\.purchased,app\\.refunded\\s+5/s\\s+backup`));
    expect(table.stdout).toMatch(/ep_\w+\s+ENABLED\s+\S+\/a\s+app\.purchased,app\.installed,app\.uninstalled,app\.refunded\s+unpaced/);

    // Paused (an API token may): its events are held, the other endpoint's are sent.
    const paused = await plazaCli(['endpoints', 'pause', id]);
    expect(paused, paused.stderr).toMatchObject({ code: 0 });
    expect(paused.stdout).toContain(`Paused ${id} (${b.url('/b')}): its events are recorded and held`);
    const first = await emitEvent(plaza, app.id);
    await a.waitForRequests(1);
    await waitForEngineIdle(plaza);
    expect(b.requests).toHaveLength(0);

    const own = await plazaCli(['deliveries', '--app', app.id, '--endpoint', id, '--json']);
    expect(own, own.stderr).toMatchObject({ code: 0 });
    expect(jsonLines(own.stdout).map((d) => [d.endpointId, d.status, d.purchaseId])).toEqual([[id, 'FAILED', first.purchaseId]]);
    const log = await plazaCli(['deliveries', '--app', app.id], { NO_COLOR: '1' });
    expect(log.stdout.split('\n')[0]).toMatch(/^CREATED\s+ID\s+ENDPOINT\s+EVENT\s+STATUS/);
    expect(log.stdout).toMatch(new RegExp(`${id}\\s+app\\.purchased\\s+FAILED`));
    expect(log.stdout).toMatch(/ep_\w+\s+app\.purchased\s+SUCCEEDED/);
    const typo = await plazaCli(['deliveries', '--endpoint', 'ep_nope']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('--endpoint must be an endpoint id such as ep_01J..., as plaza endpoints --app <id> lists them, not "ep_nope"');

    // Resumed, then what was held is recovered for that endpoint alone: one request to b, none more to a.
    const resumed = await plazaCli(['endpoints', 'resume', id]);
    expect(resumed.stdout).toContain(`${id} (${b.url('/b')}) is ENABLED`);
    const recovered = await plazaCli(['recover', '--app', app.id, '--endpoint', id, '--since', '10m']);
    expect(recovered.stderr).toContain(`Recovered ${app.id}: 1/1 sent: 1 succeeded, 0 failed`);
    expect(recovered.code).toBe(0);
    await b.waitForRequests(1);
    await waitForEngineIdle(plaza);
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);

    // Removing asks; without a terminal it needs --yes and removes nothing without it.
    const unasked = await plazaCli(['endpoints', 'remove', id]);
    expect(unasked.code).toBe(1);
    expect(unasked.stderr).toContain(`pass --yes when not on a terminal (its deliveries not yet settled give up (FAILED) and are never sent; the log keeps every delivery it had)`);
    expect(await endpointsOf(app.id)).toHaveLength(2);
    const removed = await plazaCli(['endpoints', 'remove', id, '--yes']);
    expect(removed, removed.stderr).toMatchObject({ code: 0 });
    expect(removed.stdout).toContain(`Removed ${id}: its deliveries not yet settled give up (FAILED)`);
    expect((await endpointsOf(app.id)).map((e) => e.url)).toEqual([a.url('/a')]);
    const kept = await plazaCli(['deliveries', '--app', app.id, '--endpoint', id, '--json']);
    expect(jsonLines(kept.stdout).map((d) => [d.endpointId, d.status])).toEqual([[id, 'SUCCEEDED']]);
  }, 90_000);

  it('plaza test waits for every endpoint the test event went to, exits 3 when one did not take it, and --endpoint sends to one', async () => {
    const [a, b] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(() => ({ status: 500 }))]);
    const app = await submitApp(developer, { webhookUrl: a.url('/a') });
    const added = await signedIn(['endpoints', 'add', '--app', app.id, '--url', b.url('/b')]);
    const second = added.stdout.trim();

    // The first endpoint takes it, the second answers 500: the command is not done until both answered.
    const both = await plazaCli(['test', 'app.purchased', '--app', app.id], { NO_COLOR: '1' });
    expect(both, both.stderr).toMatchObject({ code: 3 });
    expect(both.stdout).toMatch(new RegExp(`\\(ep_\\w+\\) to ${a.url('/a').replace(/[.]/g, '\\.')}: SUCCEEDED, 200`));
    expect(both.stdout).toMatch(new RegExp(`\\(${second}\\) to ${b.url('/b').replace(/[.]/g, '\\.')}: FAILED, 500`));
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);

    b.responder = ok;
    const json = await plazaCli(['test', 'app.test', '--app', app.id, '--json']);
    expect(json, json.stderr).toMatchObject({ code: 0 });
    const lines = jsonLines(json.stdout);
    expect(lines.map((d) => d.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(new Set(lines.map((d) => d.purchaseId)).size).toBe(1);

    const one = await plazaCli(['test', 'app.test', '--app', app.id, '--endpoint', second, '--json']);
    expect(one, one.stderr).toMatchObject({ code: 0 });
    expect(jsonLines(one.stdout).map((d) => d.endpointId)).toEqual([second]);
    expect([a.requests.length, b.requests.length]).toEqual([2, 3]);
  }, 60_000);

  it('plaza tail --endpoint shows only that endpoint’s deliveries', async () => {
    const [a, b] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(ok)]);
    const app = await submitApp(developer, { webhookUrl: a.url('/a') });
    const second = (await signedIn(['endpoints', 'add', '--app', app.id, '--url', b.url('/b')])).stdout.trim();
    const tail = plazaCli.start(['tail', '--app', app.id, '--endpoint', second, '--json']);
    try {
      await tail.waitFor('stderr', `Watching the deliveries of ${app.id} to ${second} live`);
      await plaza.waitForSubscriptions(1);
      const first = await emitEvent(plaza, app.id);
      await Promise.all([a.waitForRequests(1), b.waitForRequests(1)]);
      await vi_waitForSucceeded(tail.out, second);
      const seen = jsonLines(tail.out.stdout);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen.map((d) => d.endpointId))).toEqual(new Set([second]));
      expect(seen.every((d) => d.purchaseId === first.purchaseId)).toBe(true);
      await waitForDelivery(developer, first.id, (d) => d.status === 'SUCCEEDED');
    } finally {
      tail.child.kill('SIGINT');
      await tail.exited;
    }
  }, 60_000);
});

/** Until the tail printed the endpoint's delivery as SUCCEEDED. */
async function vi_waitForSucceeded(out: { stdout: string }, endpointId: string): Promise<void> {
  await expect.poll(() => jsonLines(out.stdout || '{}').some((d) => d.endpointId === endpointId && d.status === 'SUCCEEDED'), { timeout: 20_000, interval: 50 }).toBe(true);
}
