import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { createWebhookReceiver, type WebhookReceiver } from '../../packages/app-sdk/src/server/index.js';
import { newPurchaseId } from '../src/platform/ids.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { emitEvent, waitForDelivery } from './helpers/webhooks.js';

const SECRET_FIELDS = 'appId value createdAt previousValue previousValidUntil';
const REVEAL = `mutation($appId: ID!) { revealClientSecret(appId: $appId) { ${SECRET_FIELDS} } }`;
const ROTATE = `mutation($appId: ID!, $overlapHours: Int) { rotateClientSecret(appId: $appId, overlapHours: $overlapHours) { ${SECRET_FIELDS} } }`;
const FINISH = `mutation($appId: ID!) { finishClientSecretRotation(appId: $appId) { ${SECRET_FIELDS} } }`;
const AUDIT = 'query($id: ID!) { app(id: $id) { clientSecretAudit { action } } }';

interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  deliveryId: string;
  attempt: number;
  /** What the app's own receiver (the SDK, holding every secret it was given) answered; null when the test made the attempt fail. */
  sdkStatus: number | null;
}

/**
 * The app's endpoint: a real HTTP server fed by Plaza. It answers with the SDK's verdict (the receiver
 * the developer deploys) and keeps every request, so receivers holding other secrets can check the very
 * bytes and headers that were sent. First attempts of the purchase ids in `failFirstAttempt` get a 503.
 */
class RotationEndpoint {
  readonly received: Received[] = [];
  readonly failFirstAttempt = new Set<string>();
  /** Refuses everything until deploy() gives it the app's secret. */
  sdk: WebhookReceiver = async () => ({ status: 503, message: 'not deployed yet' });
  url = '';
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    // A failure here is the test's own bug: vitest reports the unhandled rejection and fails the run.
    req.on('end', () => void this.answer(Buffer.concat(chunks), req.headers, res));
  });

  static async start(): Promise<RotationEndpoint> {
    const endpoint = new RotationEndpoint();
    await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
    endpoint.url = `http://127.0.0.1:${(endpoint.server.address() as { port: number }).port}/webhooks/plaza`;
    return endpoint;
  }

  private async answer(raw: Buffer, headers: IncomingHttpHeaders, res: ServerResponse): Promise<void> {
    const body = raw.toString('utf8');
    const attempt = Number(headers['x-platform-attempt']);
    const record: Received = { body, headers, deliveryId: String(headers['x-platform-delivery']), attempt, sdkStatus: null };
    let status = 503;
    if (!(attempt === 1 && this.failFirstAttempt.has(JSON.parse(body).purchase_id))) {
      const outcome = await this.sdk(raw, headers);
      status = record.sdkStatus = outcome.status;
      await outcome.process?.();
    }
    this.received.push(record);
    res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
  }

  /** Redeploys the app's receiver with other secrets, as a developer does during a rotation. */
  deploy(clientSecret: string | string[]): WebhookReceiver {
    this.sdk = createWebhookReceiver({ clientSecret, onEvent: () => undefined });
    return this.sdk;
  }

  request(deliveryId: string, attempt: number): Received {
    const found = this.received.find((r) => r.deliveryId === deliveryId && r.attempt === attempt);
    if (!found) throw new Error(`no attempt ${attempt} of ${deliveryId} was received`);
    return found;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** What a receiver holding only `secret` can verify of one request, each header with a third-party library. */
async function verifiesWith(secret: string, request: Received) {
  const headers = request.headers as Record<string, string>;
  const attempt = (verify: () => unknown) => {
    try {
      verify();
      return true;
    } catch {
      return false;
    }
  };
  return {
    // X-Platform-Signature is GitHub's X-Hub-Signature-256 format: sha256=<hex HMAC of the body, keyed with the secret string>.
    platform: await octokitVerify(secret, request.body, headers['x-platform-signature'] ?? ''),
    standardwebhooks: attempt(() => new StandardWebhook(secret.slice('whsec_'.length)).verify(request.body, headers)),
    svix: attempt(() => new SvixWebhook(secret).verify(request.body, headers)),
  };
}

/** What the SDK's receiver, deployed with `secrets`, answers to one request Plaza sent (a fresh receiver: nothing deduplicated). */
async function sdkAnswers(secrets: string | string[], request: Received): Promise<number> {
  const receive = createWebhookReceiver({ clientSecret: secrets, onEvent: () => undefined });
  return (await receive(Buffer.from(request.body, 'utf8'), request.headers)).status;
}

const ALL = { platform: true, standardwebhooks: true, svix: true };
const NONE = { platform: false, standardwebhooks: false, svix: false };
const STANDARD_ONLY = { platform: false, standardwebhooks: true, svix: true };
const TWO_SIGNATURES = /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/;
const ONE_SIGNATURE = /^v1,[A-Za-z0-9+/]{43}=$/;

let plaza: TestPlaza;
let developer: GraphQLTestClient;
const endpoints: RotationEndpoint[] = [];

beforeAll(async () => {
  // The first retry waits 2 s, long enough to rotate or finish while it is scheduled.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '2s,300ms,300ms,300ms,300ms', WEBHOOK_TIMEOUT: '2s' });
  developer = await plaza.signIn('rotating@studio.test');
});

afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
});

async function appWithEndpoint() {
  const endpoint = await RotationEndpoint.start();
  endpoints.push(endpoint);
  const app = await submitApp(developer, { webhookUrl: endpoint.url });
  const first = (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
  endpoint.deploy(first.value);
  return { app, endpoint, first };
}

const succeeded = (d: any) => d.status === 'SUCCEEDED';
const retrying = (d: any) => d.status === 'RETRYING' && d.attemptCount === 1;

describe('rotating the client secret with an overlap', () => {
  it('never fails a receiver that holds both, keeps old-secret receivers working until the switch, and signs retries with the secrets valid when they are sent', async () => {
    const { app, endpoint, first } = await appWithEndpoint();
    const oldSecret: string = first.value;

    // Before: one secret.
    const before = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, before.id, succeeded);
    // A delivery whose first attempt fails now and whose retry is sent during the overlap.
    const retriedIntoOverlap = newPurchaseId();
    endpoint.failFirstAttempt.add(retriedIntoOverlap);
    const intoOverlap = await emitEvent(plaza, app.id, { purchaseId: retriedIntoOverlap });
    await waitForDelivery(developer, intoOverlap.id, retrying);

    const rotatedAt = Date.now();
    const rotated = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 1 })).rotateClientSecret;
    const newSecret: string = rotated.value;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.previousValue).toBe(oldSecret);
    expect(Date.parse(rotated.previousValidUntil) - rotatedAt).toBeGreaterThan(55 * 60_000);
    expect(Date.parse(rotated.previousValidUntil) - rotatedAt).toBeLessThan(65 * 60_000);
    // The owner sees both while the overlap runs.
    const revealed = (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    expect(revealed).toMatchObject({ value: newSecret, previousValue: oldSecret, previousValidUntil: rotated.previousValidUntil });
    endpoint.deploy([newSecret, oldSecret]);

    // During the overlap: the scheduled retry, new deliveries, and a first attempt that fails and is retried after the finish.
    const retriedPastFinish = newPurchaseId();
    endpoint.failFirstAttempt.add(retriedPastFinish);
    await waitForDelivery(developer, intoOverlap.id, succeeded);
    const during = [await emitEvent(plaza, app.id), await emitEvent(plaza, app.id)];
    for (const d of during) await waitForDelivery(developer, d.id, succeeded);
    const pastFinish = await emitEvent(plaza, app.id, { purchaseId: retriedPastFinish });
    await waitForDelivery(developer, pastFinish.id, retrying);

    const finished = (await developer.ok<{ finishClientSecretRotation: any }>(FINISH, { appId: app.id })).finishClientSecretRotation;
    expect(finished).toMatchObject({ value: newSecret, previousValue: null, previousValidUntil: null });
    const logged = await waitForDelivery(developer, pastFinish.id, succeeded);
    const after = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, after.id, succeeded);

    const beforeRequests = [endpoint.request(before.id, 1), endpoint.request(intoOverlap.id, 1)];
    const overlapRequests = [endpoint.request(intoOverlap.id, 2), ...during.map((d) => endpoint.request(d.id, 1)), endpoint.request(pastFinish.id, 1)];
    const afterRequests = [endpoint.request(pastFinish.id, 2), endpoint.request(after.id, 1)];

    // Four receivers at each moment: the old secret only, the new only, both; each with the third-party libraries and with the SDK.
    const sdk = async (request: Received) => ({
      old: await sdkAnswers(oldSecret, request),
      new: await sdkAnswers(newSecret, request),
      both: await sdkAnswers([newSecret, oldSecret], request),
    });
    for (const request of beforeRequests) {
      expect(request.headers['webhook-signature']).toMatch(ONE_SIGNATURE);
      expect(await verifiesWith(oldSecret, request)).toEqual(ALL);
      expect(await verifiesWith(newSecret, request)).toEqual(NONE);
      expect(await sdk(request), `${request.deliveryId} #${request.attempt}`).toEqual({ old: 200, new: 401, both: 200 });
    }
    for (const request of overlapRequests) {
      expect(request.headers['webhook-signature']).toMatch(TWO_SIGNATURES);
      // Only the old secret: both headers verify until the switch.
      expect(await verifiesWith(oldSecret, request), `${request.deliveryId} #${request.attempt}`).toEqual(ALL);
      // Only the new secret: webhook-signature verifies; X-Platform-Signature is still the old secret's.
      expect(await verifiesWith(newSecret, request), `${request.deliveryId} #${request.attempt}`).toEqual(STANDARD_ONLY);
      // The SDK goes by webhook-signature, as those libraries do: a receiver already on the new secret alone accepts.
      expect(await sdk(request), `${request.deliveryId} #${request.attempt}`).toEqual({ old: 200, new: 200, both: 200 });
    }
    for (const request of afterRequests) {
      expect(request.headers['webhook-signature']).toMatch(ONE_SIGNATURE);
      expect(await verifiesWith(oldSecret, request)).toEqual(NONE);
      expect(await verifiesWith(newSecret, request)).toEqual(ALL);
      expect(await sdk(request), `${request.deliveryId} #${request.attempt}`).toEqual({ old: 401, new: 200, both: 200 });
    }
    // The receiver holding both (the SDK) accepted every request it was asked about.
    const asked = endpoint.received.filter((r) => r.sdkStatus !== null);
    expect(asked).toHaveLength(beforeRequests.length + overlapRequests.length + afterRequests.length - 2);
    expect(asked.map((r) => r.sdkStatus)).toEqual(asked.map(() => 200));
    // The log records what was sent on each attempt.
    const sentHeaders = logged.attempts.map((a: any) => Object.fromEntries(a.requestHeaders.map((h: any) => [h.name, h.value]))['webhook-signature']);
    expect(sentHeaders).toEqual([endpoint.request(pastFinish.id, 1).headers['webhook-signature'], endpoint.request(pastFinish.id, 2).headers['webhook-signature']]);

    const audit = (await developer.ok<{ app: any }>(AUDIT, { id: app.id })).app.clientSecretAudit.map((e: any) => e.action);
    expect(audit).toEqual(['FINISH_ROTATION', 'REVEAL', 'ROTATE', 'REVEAL']);
  });

  it('lets a receiver redeployed with only the new secret (the SDK) accept every delivery of the overlap on its first attempt', async () => {
    const { app, endpoint } = await appWithEndpoint();
    const rotated = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 24 })).rotateClientSecret;
    endpoint.deploy(rotated.value);
    const during = [await emitEvent(plaza, app.id), await emitEvent(plaza, app.id)];
    // The first attempt's answer is the fact: before the SDK read webhook-signature, it answered 401 here.
    await expect.poll(() => during.map((d) => endpoint.received.find((r) => r.deliveryId === d.id)?.sdkStatus ?? null), { timeout: 10_000 }).toEqual([200, 200]);
    for (const d of during) expect(await waitForDelivery(developer, d.id, succeeded)).toMatchObject({ attemptCount: 1 });
  });

  it('ends on its own at previousValidUntil, with no job: the next attempt is signed by the new secret alone', async () => {
    const { app, endpoint, first } = await appWithEndpoint();
    const rotated = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 2 })).rotateClientSecret;
    endpoint.deploy([rotated.value, first.value]);
    const during = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, during.id, succeeded);
    expect(endpoint.request(during.id, 1).headers['webhook-signature']).toMatch(TWO_SIGNATURES);

    // Two hours pass: the overlap's end is moved into the past, as the clock would.
    await plaza.services.db.query(`UPDATE client_secrets SET previous_valid_until = now() - interval '1 second' WHERE app_id = $1`, [app.id]);
    const after = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, after.id, succeeded);
    const request = endpoint.request(after.id, 1);
    expect(request.headers['webhook-signature']).toMatch(ONE_SIGNATURE);
    expect(await verifiesWith(rotated.value, request)).toEqual(ALL);
    expect(await verifiesWith(first.value, request)).toEqual(NONE);
    const revealed = (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    expect(revealed).toMatchObject({ value: rotated.value, previousValue: null, previousValidUntil: null });
    // The reveal dropped the ended overlap's sealed secret.
    const [row] = await plaza.services.db.query('SELECT previous_ciphertext FROM client_secrets WHERE app_id = $1', [app.id]);
    expect(row.previous_ciphertext).toBeNull();
  });

  it('defaults to a 24-hour overlap and switches at once with overlapHours: 0', async () => {
    const { app, first } = await appWithEndpoint();
    const rotatedAt = Date.now();
    const byDefault = (await developer.ok<{ rotateClientSecret: any }>(`mutation($appId: ID!) { rotateClientSecret(appId: $appId) { ${SECRET_FIELDS} } }`, { appId: app.id }))
      .rotateClientSecret;
    expect(byDefault.previousValue).toBe(first.value);
    expect(Date.parse(byDefault.previousValidUntil) - rotatedAt).toBeGreaterThan(23.9 * 3_600_000);
    expect(Date.parse(byDefault.previousValidUntil) - rotatedAt).toBeLessThan(24.1 * 3_600_000);

    const now = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 0 })).rotateClientSecret;
    expect(now).toMatchObject({ previousValue: null, previousValidUntil: null });
    expect((await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret).toMatchObject({ value: now.value, previousValue: null });
  });

  it.each([169, -1, 100_000])('refuses overlapHours %s with BAD_USER_INPUT on overlapHours, and changes nothing', async (overlapHours) => {
    const { app, first } = await appWithEndpoint();
    const error = await developer.error(ROTATE, { appId: app.id, overlapHours });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'overlapHours' });
    expect(error.message).toMatch(/overlapHours.*0.*168/);
    expect((await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret).toMatchObject({ value: first.value, previousValue: null });
    const audit = (await developer.ok<{ app: any }>(AUDIT, { id: app.id })).app.clientSecretAudit.map((e: any) => e.action);
    expect(audit).toEqual(['REVEAL', 'REVEAL']);
  });
});

describe('a second rotation while an overlap runs', () => {
  const reveal = async (appId: string) => (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId })).revealClientSecret;

  it('is refused with CONFLICT / ROTATION_IN_PROGRESS naming the overlap’s end, changes nothing, and both secrets keep verifying', async () => {
    const { app, endpoint, first } = await appWithEndpoint();
    const rotated = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 24 })).rotateClientSecret;
    endpoint.deploy([rotated.value, first.value]);

    const error = await developer.error(ROTATE, { appId: app.id, overlapHours: 24 });
    expect(error.extensions).toMatchObject({ code: 'CONFLICT', reason: 'ROTATION_IN_PROGRESS', previousValidUntil: rotated.previousValidUntil });
    expect(error.message).toContain(rotated.previousValidUntil);
    expect(error.message).toMatch(/finishClientSecretRotation.*overlapHours: 0/);
    // The default overlap is refused alike.
    expect((await developer.error(`mutation($appId: ID!) { rotateClientSecret(appId: $appId) { value } }`, { appId: app.id })).extensions).toMatchObject({
      reason: 'ROTATION_IN_PROGRESS',
    });
    expect(await reveal(app.id)).toMatchObject({ value: rotated.value, previousValue: first.value, previousValidUntil: rotated.previousValidUntil });

    // The next request verifies with the original secret (both headers) and the newest (webhook-signature), as documented.
    const next = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, next.id, succeeded);
    const request = endpoint.request(next.id, 1);
    expect(await verifiesWith(first.value, request)).toEqual(ALL);
    expect(await verifiesWith(rotated.value, request)).toEqual(STANDARD_ONLY);
    // Refusals are not audited as rotations.
    const audit = (await developer.ok<{ app: any }>(AUDIT, { id: app.id })).app.clientSecretAudit.map((e: any) => e.action);
    expect(audit).toEqual(['REVEAL', 'ROTATE', 'REVEAL']);
  });

  it('lets one of two concurrent rotations through and refuses the other', async () => {
    const { app, first } = await appWithEndpoint();
    const answers = await Promise.all([1, 2].map(() => developer.request<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 24 })));
    const won = answers.filter((a) => a.data?.rotateClientSecret);
    const refused = answers.filter((a) => (a.errors?.[0]?.extensions as { reason?: string } | undefined)?.reason === 'ROTATION_IN_PROGRESS');
    expect([won.length, refused.length]).toEqual([1, 1]);
    expect(await reveal(app.id)).toMatchObject({ value: won[0]!.data!.rotateClientSecret.value, previousValue: first.value });
  });

  it('with overlapHours: 0 (a leak) ends every older secret at once: only the newest signs, both headers', async () => {
    const { app, endpoint, first } = await appWithEndpoint();
    const rotated = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 24 })).rotateClientSecret;
    const leaked = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 0 })).rotateClientSecret;
    expect(leaked).toMatchObject({ previousValue: null, previousValidUntil: null });
    expect(await reveal(app.id)).toMatchObject({ value: leaked.value, previousValue: null, previousValidUntil: null });
    endpoint.deploy(leaked.value);

    const next = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, next.id, succeeded);
    const request = endpoint.request(next.id, 1);
    expect(request.headers['webhook-signature']).toMatch(ONE_SIGNATURE);
    expect(await verifiesWith(leaked.value, request)).toEqual(ALL);
    expect(await verifiesWith(rotated.value, request)).toEqual(NONE);
    expect(await verifiesWith(first.value, request)).toEqual(NONE);
  });

  it('is allowed again once the overlap has been finished or has ended on its own', async () => {
    const { app } = await appWithEndpoint();
    const rotated = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 24 })).rotateClientSecret;
    await developer.ok(FINISH, { appId: app.id });
    const second = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 24 })).rotateClientSecret;
    expect(second.previousValue).toBe(rotated.value);

    // The overlap's end moved into the past, as the clock would move it.
    await plaza.services.db.query(`UPDATE client_secrets SET previous_valid_until = now() - interval '1 second' WHERE app_id = $1`, [app.id]);
    const third = (await developer.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id, overlapHours: 1 })).rotateClientSecret;
    expect(third.previousValue).toBe(second.value);
  });
});
