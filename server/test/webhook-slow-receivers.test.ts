import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { aimWebhookAt, emitEvent, waitForDelivery } from './helpers/webhooks.js';

const ATTEMPT_FIELDS = 'number startedAt durationMs statusCode error responseBodyExcerpt finished finishedAt outcome';
const DELIVERY = `query($id: ID!) { webhookDelivery(id: $id) { id status attemptCount attempts { ${ATTEMPT_FIELDS} } } }`;

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  // Retries an hour away: a wrongly failed first attempt shows as RETRYING, never as a quick second try.
  plaza = await startTestPlaza({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT: '4s' });
  developer = await plaza.signIn('slow-receivers@studio.test');
});

async function deliveryTo(url: string) {
  const app = await submitApp(developer);
  await aimWebhookAt(plaza, app.id, url);
  return emitEvent(plaza, app.id);
}

async function watch(id: string, done: (d: any) => boolean, timeoutMs = 15_000) {
  return vi.waitFor(
    async () => {
      const last = (await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery;
      if (!done(last)) throw new Error(`delivery ${id} did not reach the expected state; last seen: ${JSON.stringify(last)}`);
      return last;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

describe('a receiver that answers 200 and then trickles its body', () => {
  const trickling = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      trickling.add(res);
      // One byte every 500 ms, forever: the body never ends by itself.
      const timer = setInterval(() => res.write('x'), 500);
      res.on('close', () => clearInterval(timer));
    });
  });

  beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  afterAll(() => {
    for (const res of trickling) res.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is a success after one attempt: status 200 recorded, the body cut at the timeout', async () => {
    const { port } = server.address() as { port: number };
    const delivery = await deliveryTo(`http://127.0.0.1:${port}/hook`);
    // The delivery and its attempts are read by two statements: wait for both to show the result, not just the attempt.
    const done = await watch(delivery.id, (d) => d.attempts[0]?.finished === true && d.status !== 'PENDING');
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attemptCount).toBe(1);
    const [attempt] = done.attempts;
    expect(attempt).toMatchObject({ number: 1, statusCode: 200, error: null, outcome: 'SUCCEEDED' });
    // What arrived before the 4 s deadline: some of the trickled bytes, nothing else.
    expect(attempt.responseBodyExcerpt).toMatch(/^x+$/);
    expect(attempt.durationMs).toBeGreaterThanOrEqual(3_000);
    expect(trickling.size).toBe(1);
  });
});

describe('an attempt in flight', () => {
  it('reads as IN_FLIGHT with no finishedAt while the receiver hangs, then as a FAILED timeout', async () => {
    const receiver = await WebhookReceiver.start(() => 'hang');
    const delivery = await deliveryTo(receiver.url());
    await receiver.waitForRequests(1);

    const during = await watch(delivery.id, (d) => d.attempts.length === 1);
    expect(during.attempts[0]).toMatchObject({ number: 1, finished: false, finishedAt: null, outcome: 'IN_FLIGHT', statusCode: null, error: null });
    // durationMs is the time so far, not a finished attempt's duration.
    expect(during.attempts[0].durationMs).toBeGreaterThanOrEqual(0);

    const after = await waitForDelivery(developer, delivery.id, (d) => d.attempts[0].finished && d.status !== 'PENDING', 15_000);
    const ended = (await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id: delivery.id })).webhookDelivery.attempts[0];
    expect(after.status).toBe('RETRYING');
    expect(ended).toMatchObject({ outcome: 'FAILED', statusCode: null, error: expect.stringMatching(/^timeout/) });
    expect(Date.parse(ended.finishedAt)).toBe(Date.parse(ended.startedAt) + ended.durationMs);
  });
});
