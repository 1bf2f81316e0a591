import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';
import { submitApp } from '../helpers/factories.js';
import { GraphQLTestClient } from '../helpers/graphql-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { openDatabase, purchaseEventProducer, requestsPerDelivery, startApiProcess, startWorkerProcess, waitUntil } from './fault-helpers.js';

// This file's own PostgreSQL, so stopping it cannot touch the run's shared one. In /tmp: the postgres
// user must be able to reach the data directory.
const dir = mkdtempSync(path.join(tmpdir(), 'plaza-pg-shutdown-'));
chmodSync(dir, 0o755);
const databaseDir = path.join(dir, 'pg');
let database: EmbeddedDatabase | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  // Each cleanup runs even when one before it fails: a failure here would only hide the test's own result.
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await database?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const GRACE_MS = 4_000;
/** What a stop may take past its grace: closing the job store, the HTTP server and the pools, on a busy machine. */
const PAST_GRACE_MS = 4_000;
/** The receiver answers the first request this late: the worker has been told to stop and the database is down by then. */
const ANSWER_AFTER_MS = 2_000;
// The lease is what a result write retried for before; far longer than grace plus bound, so the test tells them apart.
const WORKER_ENV = { SHUTDOWN_GRACE: `${GRACE_MS / 1000}s`, WEBHOOK_TIMEOUT: '5s', WEBHOOK_CLAIM_LEASE: '12s', WEBHOOK_RETRY_SCHEDULE: '500ms,500ms,500ms' };

describe('a worker told to stop while the database is down', () => {
  // Two PostgreSQL starts, an API and two workers, a stop and a lease's expiry: 30-45 s on two busy cores.
  it('exits within its grace, and the attempt whose result it could not write is made again once the database is back', { timeout: 120_000 }, async () => {
    const port = await findFreePort();
    database = await startEmbeddedPostgres({ databaseDir, fsync: false, port });
    // Over TCP, as to a database on another machine (the embedded one's URL names its Unix socket too).
    const url = database.url.replace(/\?host=.*$/, '');
    const api = await startApiProcess(url);
    cleanups.push(() => api.stop('SIGKILL'));
    const db = await openDatabase(url);
    cleanups.push(() => db.end());
    const receiver = await WebhookReceiver.start((_, index) => ({ status: 200, body: 'ok', delayMs: index === 0 ? ANSWER_AFTER_MS : 0 }));
    const developer = await GraphQLTestClient.signIn(api.url, 'shutdown@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const worker = await startWorkerProcess(url, WORKER_ENV);
    cleanups.push(() => worker.stop('SIGKILL'));

    const producer = await purchaseEventProducer(url, app.id, developer.userId);
    const delivery = (await producer.purchase())!;
    await producer.close();
    await receiver.waitForRequests(1, 20_000);

    // The attempt is in flight: the database goes, then the worker is told to stop; the receiver answers after both.
    await database.stop();
    const toldAt = Date.now();
    const exitCode = await worker.stop('SIGTERM');
    const stopMs = Date.now() - toldAt;
    console.log(JSON.stringify({ graceMs: GRACE_MS, stopMs, exitCode }));
    expect(stopMs, worker.output()).toBeLessThan(GRACE_MS + PAST_GRACE_MS);
    expect(exitCode, worker.output()).toBe(0);
    // It could not write the result: it says so, and that the delivery will be made again.
    expect(worker.output()).toMatch(/delivery results could not be written; their claims will expire and they will be retried/);

    // Back: another worker makes the attempt again once the stopped one's claim has run out, and records it.
    database = await startEmbeddedPostgres({ databaseDir, fsync: false, port });
    const second = await startWorkerProcess(url, WORKER_ENV);
    cleanups.push(() => second.stop('SIGKILL'));
    await waitUntil(
      'the delivery to succeed after the database is back',
      async () => (await db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1', [delivery.id])).rows[0]?.status === 'SUCCEEDED',
      45_000,
      200,
    );
    expect(requestsPerDelivery(receiver).get(delivery.id)).toBe(2);
    const { rows: attempts } = await db.query<{ number: number; finished: boolean; status_code: number | null; error: string | null }>(
      'SELECT number, finished, status_code, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY number',
      [delivery.id],
    );
    // The first attempt's answer never reached the database: it is recorded as interrupted, the second as it went.
    expect(attempts).toEqual([
      { number: 1, finished: true, status_code: null, error: expect.stringMatching(/^interrupted/) },
      { number: 2, finished: true, status_code: 200, error: null },
    ]);
    expect(await second.stop('SIGTERM'), second.output()).toBe(0);
  });
});
