import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it, vi } from 'vitest';
import type { DedupeStore, WebhookHandlerOptions } from '../../src/server/index.js';
import { deferred } from './deferred.js';
import type { RunningServer } from './http-server.js';
import { recordingListener } from './recording-listener.js';
import { deliveryHeaders, eventBody, newClientSecret, platformSignatureForTest, standardHeadersForTest } from './webhook-fixtures.js';

/** Starts a receiver built from `options` and answers the URL webhooks are POSTed to. */
export type StartReceiver = (options: WebhookHandlerOptions) => Promise<RunningServer & { webhookUrl: string }>;

/**
 * The receiver behaviour the contract asks for, run over real HTTP against each adapter
 * (node:http and express), so both are held to the same cases.
 */
export function webhookReceiverCases(start: StartReceiver): void {
  const clientSecret = newClientSecret();
  const servers: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function receiver(overrides: Partial<WebhookHandlerOptions> = {}, gate?: Promise<void>) {
    const listener = recordingListener(gate);
    const server = await start({ clientSecret, onEvent: listener.onEvent, ...overrides });
    servers.push(server);
    const post = (body: string, headers: Record<string, string>) => fetch(server.webhookUrl, { method: 'POST', body, headers });
    return { ...listener, post, url: server.webhookUrl };
  }

  /**
   * Posts a valid delivery after the requests under test and waits until onEvent has it. The adapters
   * start processing in the order they answered (setImmediate after the answer), so once this one has
   * started, any request answered before it that was going to reach onEvent has reached it: what a
   * check that nothing was processed waits for. Resolves with the witness's event, last in `started`.
   */
  async function processedAfter(post: (body: string, headers: Record<string, string>) => Promise<Response>, started: { event: unknown }[]) {
    const body = eventBody({ user_id: 'usr_witness' });
    expect((await post(body, deliveryHeaders(body, clientSecret))).status).toBe(200);
    await vi.waitFor(() => expect(started.at(-1)?.event).toEqual(JSON.parse(body)));
    return JSON.parse(body);
  }

  it('answers 200 before processing, then calls onEvent once with the event and delivery meta', async () => {
    const gate = deferred();
    const { post, started, finished } = await receiver({}, gate.promise);
    const body = eventBody();

    const response = await post(body, deliveryHeaders(body, clientSecret, { deliveryId: 'dlv_1', attempt: 2 }));
    expect(response.status).toBe(200);
    // onEvent is still held open by the gate, yet the platform already has its answer.
    expect(finished).toHaveLength(0);

    gate.resolve();
    await vi.waitFor(() => expect(finished).toHaveLength(1));
    expect(started).toHaveLength(1);
    expect(started[0]?.event).toEqual(JSON.parse(body));
    expect(started[0]?.meta).toEqual({ deliveryId: 'dlv_1', attempt: 2, eventName: 'app.purchased' });
  });

  it('answers 401 text/plain to a wrong signature and processes nothing', async () => {
    const { post, started } = await receiver();
    const body = eventBody();
    const wrongSecret = await post(body, deliveryHeaders(body, newClientSecret()));
    const changedBody = await post(body.replace('50000', '5'), deliveryHeaders(body, clientSecret));
    // webhook-signature is the one judged when present: a valid X-Platform-Signature beside a forged one does not help.
    const forgedStandard = await post(body, { ...deliveryHeaders(body, newClientSecret()), 'x-platform-signature': platformSignatureForTest(body, clientSecret) });

    for (const response of [wrongSecret, changedBody, forgedStandard]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await response.text()).toBe('Invalid webhook signature');
    }
    const witness = await processedAfter(post, started);
    expect(started.map(({ event }) => event)).toEqual([witness]);
  });

  it('processes a redelivered (event, purchase_id) once', async () => {
    const { post, started } = await receiver();
    const body = eventBody();
    const first = await post(body, deliveryHeaders(body, clientSecret, { deliveryId: 'dlv_a', attempt: 1 }));
    const retry = await post(body, deliveryHeaders(body, clientSecret, { deliveryId: 'dlv_a', attempt: 2 }));
    const manual = await post(body, deliveryHeaders(body, clientSecret, { deliveryId: 'dlv_b', attempt: 1 }));

    expect([first.status, retry.status, manual.status]).toEqual([200, 200, 200]);
    const witness = await processedAfter(post, started);
    expect(started.map(({ event }) => event)).toEqual([JSON.parse(body), witness]);
  });

  it('processes a refund that shares its purchase_id with an earlier purchase', async () => {
    const { post, started } = await receiver();
    const purchase = eventBody({ purchase_id: 'APP-1700000000000-7K3M9Q' });
    const refund = eventBody({ event: 'app.refunded', purchase_id: 'APP-1700000000000-7K3M9Q' });
    await post(purchase, deliveryHeaders(purchase, clientSecret));
    await post(refund, deliveryHeaders(refund, clientSecret));

    await vi.waitFor(() => expect(started.map(({ event }) => event.event)).toEqual(['app.purchased', 'app.refunded']));
  });

  it('answers 400 text/plain to malformed JSON with a valid signature', async () => {
    const { post, started } = await receiver();
    for (const body of ['{"event":', '[1,2]', 'null', eventBody({ purchase_id: 42 }), eventBody({ amount_vnd: '50000' })]) {
      const headers = {
        'content-type': 'application/json',
        'x-platform-signature': platformSignatureForTest(body, clientSecret),
        ...standardHeadersForTest(body, clientSecret, 'dlv_m'),
      };
      const response = await post(body, headers);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await response.text()).toMatch(/^Malformed webhook payload/);
    }
    expect(started).toHaveLength(0);
  });

  it('answers 400 to a signed body of a known event that breaks its served schema (an extra field, a paid install), and onEvent never sees it', async () => {
    const { post, started } = await receiver();
    const extraField = eventBody({ coupon: 'FREE100' });
    const paidInstall = eventBody({ event: 'app.installed' });
    const extra = await post(extraField, deliveryHeaders(extraField, clientSecret));
    const paid = await post(paidInstall, deliveryHeaders(paidInstall, clientSecret));
    expect([extra.status, await extra.text()]).toEqual([400, expect.stringMatching(/^Malformed webhook payload: unexpected field coupon/)]);
    expect([paid.status, await paid.text()]).toEqual([400, 'Malformed webhook payload: amount_vnd must be 0']);
    const witness = await processedAfter(post, started);
    expect(started.map(({ event }) => event)).toEqual([witness]);
  });

  it('answers 200 to a signed event it does not know and gives it to onUnknownEvent, never to onEvent', async () => {
    const unknown: unknown[] = [];
    const { post, started } = await receiver({ onUnknownEvent: (event, meta) => void unknown.push({ event, meta }) });
    const body = eventBody({ event: 'app.bogus', extra: true });
    const response = await post(body, deliveryHeaders(body, clientSecret, { deliveryId: 'dlv_u', attempt: 1 }));
    expect([response.status, await response.text()]).toEqual([200, 'Unknown event app.bogus: not processed by this receiver']);
    await vi.waitFor(() => expect(unknown).toEqual([{ event: JSON.parse(body), meta: { deliveryId: 'dlv_u', attempt: 1, eventName: 'app.bogus' } }]));
    expect(started).toHaveLength(0);
    // Without onUnknownEvent it is answered the same, and dropped.
    const { post: postToPlain, started: plainStarted } = await receiver();
    expect((await postToPlain(body, deliveryHeaders(body, clientSecret))).status).toBe(200);
    const witness = await processedAfter(postToPlain, plainStarted);
    expect(plainStarted.map(({ event }) => event)).toEqual([witness]);
  });

  it('lets a later delivery through when processing failed, and reports the failure', async () => {
    const onError = vi.fn();
    let calls = 0;
    const server = await start({
      clientSecret,
      onError,
      onEvent: () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
      },
    });
    servers.push(server);
    const body = eventBody();
    const post = () => fetch(server.webhookUrl, { method: 'POST', body, headers: deliveryHeaders(body, clientSecret) });

    expect((await post()).status).toBe(200);
    await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
    expect(onError.mock.calls[0]?.[0]).toEqual(new Error('database down'));
    expect((await post()).status).toBe(200);
    await vi.waitFor(() => expect(calls).toBe(2));
  });

  it('answers 503 when the dedupe store fails, so the platform retries', async () => {
    const brokenStore: DedupeStore = {
      claim: () => Promise.reject(new Error('connection refused')),
      release: () => undefined,
    };
    const { post, started } = await receiver({ seen: brokenStore, onError: () => undefined });
    const body = eventBody();
    const response = await post(body, deliveryHeaders(body, clientSecret));
    expect(response.status).toBe(503);
    expect(started).toHaveLength(0);
  });

  it('uses a pluggable dedupe store', async () => {
    const claimed = new Set<string>();
    const store: DedupeStore = {
      claim: async (key) => !claimed.has(key) && Boolean(claimed.add(key)),
      release: async (key) => void claimed.delete(key),
    };
    const { post, started } = await receiver({ seen: store });
    const body = eventBody({ purchase_id: 'APP-1700000000000-AAAAAA' });
    await post(body, deliveryHeaders(body, clientSecret));
    await post(body, deliveryHeaders(body, clientSecret));
    await vi.waitFor(() => expect(started).toHaveLength(1));
    expect([...claimed]).toEqual(['app.purchased:APP-1700000000000-AAAAAA']);
  });

  it('answers 413 to a body over the limit', async () => {
    const { post, started } = await receiver({ maxBodyBytes: 64 });
    const body = eventBody();
    const response = await post(body, deliveryHeaders(body, clientSecret));
    expect(response.status).toBe(413);
    expect(started).toHaveLength(0);
  });

  it('with replayToleranceSeconds, also requires fresh Standard Webhooks headers', async () => {
    const { post, started } = await receiver({ replayToleranceSeconds: 60 });
    const body = eventBody();
    const standard = (at: Date) => ({
      'webhook-id': 'dlv_s',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(clientSecret).sign('dlv_s', at, body),
    });
    const stale = await post(body, { ...deliveryHeaders(body, clientSecret), ...standard(new Date(Date.now() - 10 * 60 * 1000)) });
    expect(stale.status).toBe(401);
    const fresh = await post(body, { ...deliveryHeaders(body, clientSecret), ...standard(new Date()) });
    expect(fresh.status).toBe(200);
    await vi.waitFor(() => expect(started).toHaveLength(1));
  });

  it('by default refuses a request signed more than 5 minutes ago or ahead, saying why, and processes nothing', async () => {
    const { post, started } = await receiver();
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const replayed = eventBody();
    const early = eventBody();

    const stale = await post(replayed, deliveryHeaders(replayed, clientSecret, { at: minutesAgo(6) }));
    expect(stale.status).toBe(401);
    expect(stale.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await stale.text()).toMatch(/^Webhook timestamp too old: signed 3[5-9]\d s ago, more than the 300 s tolerance/);
    const ahead = await post(early, deliveryHeaders(early, clientSecret, { at: minutesAgo(-6) }));
    expect(ahead.status).toBe(401);
    expect(await ahead.text()).toMatch(/^Webhook timestamp too new: signed 3[5-9]\d s in the future/);
    const witness = await processedAfter(post, started);
    expect(started.map(({ event }) => event)).toEqual([witness]);

    // Inside the tolerance, the same events go through: refusing them claimed nothing in the dedupe store.
    expect((await post(replayed, deliveryHeaders(replayed, clientSecret, { at: minutesAgo(4) }))).status).toBe(200);
    expect((await post(early, deliveryHeaders(early, clientSecret, { at: minutesAgo(-4) }))).status).toBe(200);
    await vi.waitFor(() => expect(started).toHaveLength(3));
  });

  it('by default requires the Standard Webhooks headers, and their signature over the timestamp', async () => {
    const { post, started } = await receiver();
    const body = eventBody();
    const { 'webhook-timestamp': _timestamp, ...undated } = deliveryHeaders(body, clientSecret);
    const missing = await post(body, undated);
    expect(missing.status).toBe(401);
    expect(await missing.text()).toBe('Missing webhook-timestamp: Plaza signs every delivery with these Standard Webhooks headers, which replay protection needs');
    // A fresh timestamp put on a captured request breaks the webhook-signature that covered the old one.
    const captured = deliveryHeaders(body, clientSecret, { at: new Date(Date.now() - 60 * 60_000) });
    const refreshed = await post(body, { ...captured, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) });
    expect(refreshed.status).toBe(401);
    expect(await refreshed.text()).toBe('Invalid webhook signature');
    // Without webhook-signature, a valid X-Platform-Signature (which covers no time) is not enough.
    const { 'webhook-signature': _signature, ...stripped } = captured;
    const downgraded = await post(body, stripped);
    expect(downgraded.status).toBe(401);
    expect(await downgraded.text()).toMatch(/^Missing webhook-signature: /);
    const witness = await processedAfter(post, started);
    expect(started.map(({ event }) => event)).toEqual([witness]);
  });

  it('accepts a request whose webhook-signature verifies even when X-Platform-Signature is another secret’s or absent (a rotation’s overlap)', async () => {
    const { post, started } = await receiver();
    const overlap = eventBody();
    const unsigned = eventBody();
    expect((await post(overlap, { ...deliveryHeaders(overlap, clientSecret), 'x-platform-signature': platformSignatureForTest(overlap, newClientSecret()) })).status).toBe(200);
    const { 'x-platform-signature': _dropped, ...withoutPlatform } = deliveryHeaders(unsigned, clientSecret);
    expect((await post(unsigned, withoutPlatform)).status).toBe(200);
    await vi.waitFor(() => expect(started).toHaveLength(2));
  });

  it('with replayToleranceSeconds: false, judges no time: webhook-signature when present, X-Platform-Signature only without it', async () => {
    const { post, started } = await receiver({ replayToleranceSeconds: false });
    const old = eventBody();
    const bare = eventBody();
    const forged = eventBody();
    expect((await post(old, deliveryHeaders(old, clientSecret, { at: new Date(Date.now() - 60 * 60_000) }))).status).toBe(200);
    expect((await post(bare, { 'content-type': 'application/json', 'x-platform-signature': platformSignatureForTest(bare, clientSecret) })).status).toBe(200);
    expect((await post(forged, { ...deliveryHeaders(forged, newClientSecret()), 'x-platform-signature': platformSignatureForTest(forged, clientSecret) })).status).toBe(401);
    await vi.waitFor(() => expect(started).toHaveLength(2));
  });

  it('refuses a replay tolerance that is not a positive number of seconds', async () => {
    for (const replayToleranceSeconds of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(receiver({ replayToleranceSeconds })).rejects.toThrow('replayToleranceSeconds must be a positive number of seconds, or false');
    }
  });
}
