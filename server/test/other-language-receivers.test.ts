import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { startScript, type ScriptProcess } from './helpers/script-process.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

// The receivers in examples/ that use no Plaza code at all, run as a developer would, against a real Plaza.
const PYTHON_RECEIVER = join(REPO_ROOT, 'examples/python-receiver/receiver.py');
const SHELL_CHECK = join(REPO_ROOT, 'examples/shell-verify/verify-webhook.sh');
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';
const FORWARD = 'query($id: ID!) { webhookForwardRequest(deliveryId: $id) { body } }';
const ROTATE = 'mutation($appId: ID!) { rotateClientSecret(appId: $appId, overlapHours: 1) { previousValidUntil } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let scratch: string;

beforeAll(async () => {
  plaza = await startTestPlaza();
  [developer, reviewer] = await Promise.all([plaza.signIn('polyglot@studio.test'), plaza.signIn(REVIEWER_EMAIL)]);
  scratch = await mkdtemp(join(tmpdir(), 'plaza-receivers-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function approvedApp(webhookUrl: string): Promise<{ appId: string; secret: string }> {
  const app = await submitApp(developer, { webhookUrl });
  await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  const secret = (await developer.ok<{ revealClientSecret: { value: string } }>(REVEAL, { appId: app.id })).revealClientSecret.value;
  return { appId: app.id, secret };
}

/** Standard Webhooks signing, as Plaza does it (server/src/modules/webhooks/webhook-signing.ts), for requests a test crafts. */
function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('the Python receiver (examples/python-receiver, standard library only)', () => {
  let receiver: ScriptProcess;
  let url: string;
  let app: { appId: string; secret: string };

  beforeAll(async () => {
    const port = await findFreePort();
    url = `http://127.0.0.1:${port}/webhooks/plaza`;
    app = await approvedApp(url);
    receiver = startScript('python3', [PYTHON_RECEIVER], { cwd: scratch, env: { PLAZA_CLIENT_SECRET: app.secret, PORT: String(port), PYTHONDONTWRITEBYTECODE: '1' } });
    await receiver.waitFor(/receiving Plaza webhooks on /);
  });

  it('accepts a real delivery from Plaza, and refuses it with a tampered body or a stale timestamp', async () => {
    const delivery = await emitEvent(plaza, app.appId);
    const done = await waitForDelivery(developer, delivery.id, isFinal, 60_000);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts[0].statusCode).toBe(200);
    await receiver.waitFor(new RegExp(`app\\.purchased ${done.purchaseId} for usr_buyer_1 \\(delivery ${delivery.id}, attempt 1\\)`));

    // The request as Plaza sent it: its headers from the delivery log, its exact body bytes from webhookForwardRequest.
    const sent = Object.fromEntries((done.attempts[0].requestHeaders as { name: string; value: string }[]).map(({ name, value }) => [name.toLowerCase(), value]));
    const { body } = (await developer.ok<{ webhookForwardRequest: { body: string } }>(FORWARD, { id: delivery.id })).webhookForwardRequest;
    const replay = (headers: Record<string, string>, payload: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
    const standard = { 'webhook-id': sent['webhook-id']!, 'webhook-timestamp': sent['webhook-timestamp']!, 'webhook-signature': sent['webhook-signature']! };
    // The log's body is the one that was signed: re-sent unchanged (within 5 minutes) it is accepted again, as a duplicate.
    const again = await replay(standard, body);
    expect([again.status, await again.text()]).toEqual([200, 'Already processed']);

    const tampered = await replay(standard, body.replace('"amount_vnd":50000', '"amount_vnd":5000000'));
    expect(body).toContain('"amount_vnd":50000');
    expect([tampered.status, await tampered.text()]).toEqual([401, 'Invalid webhook signature']);

    // Signed correctly, as Plaza signed this delivery six minutes ago: a replay of an old capture.
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const stale = await replay(
      { ...standard, 'webhook-timestamp': String(sixMinutesAgo), 'webhook-signature': sign(app.secret, standard['webhook-id'], sixMinutesAgo, body) },
      body,
    );
    expect(stale.status).toBe(401);
    expect(await stale.text()).toMatch(/^Webhook timestamp too old or too new: signed 3[6-9]\d s from now, more than 300 s$/);
    // The same signing with the current time is accepted, so it was the age that was refused.
    const now = Math.floor(Date.now() / 1000);
    const fresh = await replay({ ...standard, 'webhook-timestamp': String(now), 'webhook-signature': sign(app.secret, standard['webhook-id'], now, body) }, body);
    expect(fresh.status).toBe(200);
    expect(receiver.output().match(/app\.purchased /g)).toHaveLength(1);
  }, 90_000);

  it("accepts Plaza's two signatures during a rotation while it still holds the old secret", async () => {
    const { rotateClientSecret } = await developer.ok<{ rotateClientSecret: { previousValidUntil: string | null } }>(ROTATE, { appId: app.appId });
    expect(rotateClientSecret.previousValidUntil).not.toBeNull();
    const delivery = await emitEvent(plaza, app.appId);
    const done = await waitForDelivery(developer, delivery.id, isFinal, 60_000);
    const signature = done.attempts[0].requestHeaders.find((h: { name: string }) => h.name.toLowerCase() === 'webhook-signature').value;
    // v1,<new> v1,<old>: the receiver's secret signed the second one.
    expect(signature.split(' ')).toHaveLength(2);
    expect([done.status, done.attempts[0].statusCode]).toEqual(['SUCCEEDED', 200]);
    await receiver.waitFor(new RegExp(`app\\.purchased ${done.purchaseId} `));
  }, 90_000);
});

interface CheckOptions {
  env?: Record<string, string>;
  timestamp?: string;
  signature?: string;
}

describe('the openssl check (examples/shell-verify)', () => {
  it('verifies a real captured delivery and refuses it tampered', async () => {
    const capture = await WebhookReceiver.start();
    const app = await approvedApp(capture.url());
    const delivery = await emitEvent(plaza, app.appId);
    await waitForDelivery(developer, delivery.id, isFinal, 60_000);
    const request = capture.requests[0]!;
    const header = (name: string) => request.headers[name] as string;

    const check = (bodyFile: string, { env = {}, timestamp = header('webhook-timestamp'), signature = header('webhook-signature') } = {} as CheckOptions) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'sh',
          [SHELL_CHECK, header('webhook-id'), timestamp, signature, bodyFile],
          { env: { PATH: process.env.PATH, PLAZA_CLIENT_SECRET: app.secret, ...env } },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        );
      });

    const genuine = join(scratch, 'body.json');
    await writeFile(genuine, request.rawBody);
    const verified = await check(genuine);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toMatch(/^verified: signed by Plaza with this secret -?\d+ s ago\n$/);

    const tamperedFile = join(scratch, 'tampered.json');
    await writeFile(tamperedFile, request.rawBody.toString('utf8').replace('usr_buyer_1', 'usr_buyer_2'));
    const tampered = await check(tamperedFile);
    expect(request.rawBody.toString('utf8')).toContain('usr_buyer_1');
    expect([tampered.code, tampered.stdout]).toEqual([1, '']);
    expect(tampered.stderr).toContain('signature does not match');

    // Another secret does not verify it either.
    expect((await check(genuine, { env: { PLAZA_CLIENT_SECRET: `whsec_${randomBytes(32).toString('base64')}` } })).code).toBe(1);
    // Signed six minutes ago: the signature holds, and the age is refused apart (exit 2).
    const sixMinutesAgo = String(Math.floor(Date.now() / 1000) - 6 * 60);
    const stale = await check(genuine, { timestamp: sixMinutesAgo, signature: sign(app.secret, header('webhook-id'), Number(sixMinutesAgo), request.rawBody.toString('utf8')) });
    expect([stale.code, stale.stderr]).toEqual([2, expect.stringMatching(/^signature verified, but signed 3[6-9]\d s ago: outside the 300 s replay window\n$/)]);
  }, 90_000);
});
