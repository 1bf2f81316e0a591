import { afterAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase } from './helpers/database.js';
import { submitApp } from './helpers/factories.js';
import { GraphQLTestClient } from './helpers/graphql-client.js';
import { OtlpReceiver } from './helpers/otlp-receiver.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { openDatabase, purchaseEventProducer, startApiProcess, startWorkerProcess } from './faults/fault-helpers.js';

// A traced worker stopped while an attempt hangs: what it did at shutdown is in the trace.

/** A worker whose attempt outlives its grace: SIGTERM hands it back after a second, while the receiver still holds the request. */
const STOPPING_WORKER = { SHUTDOWN_GRACE: '1s', WEBHOOK_TIMEOUT: '30s', WEBHOOK_CLAIM_LEASE: '31s' };

describe('a traced worker stopped while an attempt hangs', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('records the hand-back of the attempt in flight as a span linked to that attempt', { timeout: 240_000 }, async () => {
    const otlp = await OtlpReceiver.start();
    const databaseUrl = await createTestDatabase();
    // A first start migrates a new database: on a loaded machine that alone can take a minute.
    const api = await startApiProcess(databaseUrl, {}, { readyWithinMs: 120_000 });
    const worker = await startWorkerProcess(databaseUrl, { ...STOPPING_WORKER, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' }, { readyWithinMs: 120_000 });
    const receiver = await WebhookReceiver.start(() => 'hang');
    const developer = await GraphQLTestClient.signIn(api.url, 'hand-back@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const { purchase, close } = await purchaseEventProducer(databaseUrl, app.id, developer.userId);
    cleanups.push(close);
    await purchase();
    await vi.waitFor(() => expect(receiver.hangingNow).toBe(1), { timeout: 30_000, interval: 50 });
    // The attempt's span, as the receiver was given it.
    const attemptSpan = String(receiver.requests[0]!.headers.traceparent).split('-')[2];

    await worker.stop('SIGTERM');
    const handBack = await vi.waitFor(
      () => {
        const span = otlp.spans.find((candidate) => candidate.name === 'webhook.deliveries.hand_back');
        expect(span).toBeDefined();
        return span!;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(handBack).toMatchObject({ service: 'plaza-worker', parentSpanId: '', links: [{ spanId: attemptSpan }] });
    expect(handBack.attributes['messaging.batch.message_count']).toBe(1);
    // Its statement is its child: the claim released and the attempt closed as interrupted.
    expect(otlp.spans.filter((span) => span.parentSpanId === handBack.spanId).map((span) => span.attributes['db.operation.name'])).toEqual(['WITH']);
  });

  it('with its hand-back stuck past the grace, exits only after sending the spans of the attempt that was cut off', { timeout: 240_000 }, async () => {
    const otlp = await OtlpReceiver.start();
    const databaseUrl = await createTestDatabase();
    const db = await openDatabase(databaseUrl);
    cleanups.push(() => db.end());
    const api = await startApiProcess(databaseUrl, {}, { readyWithinMs: 120_000 });
    // Spans queued for ten minutes: only a flush at exit sends them.
    const worker = await startWorkerProcess(
      databaseUrl,
      { ...STOPPING_WORKER, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '600000' },
      { readyWithinMs: 120_000 },
    );
    const receiver = await WebhookReceiver.start(() => 'hang');
    const developer = await GraphQLTestClient.signIn(api.url, 'hard-exit@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const { purchase, close } = await purchaseEventProducer(databaseUrl, app.id, developer.userId);
    cleanups.push(close);
    await purchase();
    await vi.waitFor(() => expect(receiver.hangingNow).toBe(1), { timeout: 30_000, interval: 50 });
    const attemptSpan = String(receiver.requests[0]!.headers.traceparent).split('-')[2];
    // The delivery's row held by another transaction: the hand-back at the grace waits for it, and is left unfinished
    // when the grace (1 s) has run out, the delivery to its lease, as with a database out of reach.
    const holder = await db.connect();
    cleanups.push(async () => holder.release());
    await holder.query('BEGIN');
    cleanups.push(() => holder.query('ROLLBACK'));
    await holder.query('SELECT 1 FROM webhook_deliveries WHERE app_id = $1 FOR UPDATE', [app.id]);

    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.stdout()).toContain('left unfinished at the end of the grace');
    // Sent before the exit: the attempt, ended as interrupted, and the claim that took it; nothing was exported before.
    const attempt = otlp.spans.find((span) => span.name === 'POST');
    expect(attempt).toMatchObject({ service: 'plaza-worker', spanId: attemptSpan, status: { code: 2, message: 'interrupted' } });
    expect(attempt!.attributes['error.type']).toBe('interrupted');
    const claim = otlp.spans.find((span) => span.name === 'webhook.deliveries.claim')!;
    // Its event was recorded outside any trace (straight in the database), so the attempt continues its claim's.
    expect(attempt).toMatchObject({ traceId: claim.traceId, parentSpanId: claim.spanId });
    // The hand-back that waited on the row, cut off too.
    expect(otlp.spans.find((span) => span.name === 'webhook.deliveries.hand_back')?.status.message).toBe('interrupted');
  });
});
