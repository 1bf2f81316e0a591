import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/embedded-postgres.js';
import { submitApp } from '../helpers/factories.js';
import { GraphQLTestClient } from '../helpers/graphql-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { expectMadeAgainByAnotherWorker, openDatabase, purchaseEventProducer, restartablePostgres, startApiProcess, startWorkerProcess } from './fault-helpers.js';

const postgres = restartablePostgres('shutdown');

const GRACE_MS = 4_000;
/** What a stop may take past its grace: closing the job store, the HTTP server and the pools, on a busy machine. */
const PAST_GRACE_MS = 4_000;
// The lease is what a result write retried for before; far longer than grace plus bound, so the test tells them apart.
const WORKER_ENV = { SHUTDOWN_GRACE: `${GRACE_MS / 1000}s`, WEBHOOK_TIMEOUT: '5s', WEBHOOK_CLAIM_LEASE: '12s', WEBHOOK_RETRY_SCHEDULE: '500ms,500ms,500ms' };

describe('a worker told to stop while the database is down', () => {
  // Two PostgreSQL starts, an API and two workers, a stop and a lease's expiry: 30-45 s on two busy cores.
  it('exits within its grace, and the attempt whose result it could not write is made again once the database is back', { timeout: 120_000 }, async () => {
    const port = await findFreePort();
    const database = await postgres.start(port);
    // Over TCP, as to a database on another machine (the embedded one's URL names its Unix socket too).
    const url = database.url.replace(/\?host=.*$/, '');
    const api = await startApiProcess(url);
    postgres.cleanup(() => api.stop('SIGKILL'));
    const db = await openDatabase(url);
    postgres.cleanup(() => db.end());
    // The first request is answered only once the database is down and the worker has been told to stop.
    let answerTheFirst!: () => void;
    const firstAnswerMayGo = new Promise<void>((resolve) => (answerTheFirst = resolve));
    const receiver = await WebhookReceiver.start((_, index) => ({ status: 200, body: 'ok', until: index === 0 ? firstAnswerMayGo : undefined }));
    const developer = await GraphQLTestClient.signIn(api.url, 'shutdown@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const worker = await startWorkerProcess(url, WORKER_ENV);
    postgres.cleanup(() => worker.stop('SIGKILL'));

    const producer = await purchaseEventProducer(url, app.id, developer.userId);
    const delivery = (await producer.purchase())!;
    await producer.close();
    await receiver.waitForRequests(1, 20_000);

    // The attempt is in flight: the database goes, then the worker is told to stop; the receiver answers after both.
    await postgres.stop();
    const toldAt = Date.now();
    const stopping = worker.stop('SIGTERM');
    answerTheFirst();
    const exitCode = await stopping;
    const stopMs = Date.now() - toldAt;
    console.log(JSON.stringify({ graceMs: GRACE_MS, stopMs, exitCode }));
    expect(stopMs, worker.output()).toBeLessThan(GRACE_MS + PAST_GRACE_MS);
    expect(exitCode, worker.output()).toBe(0);
    // It could not write the result: it says so, and that the delivery will be made again.
    expect(worker.output()).toMatch(/delivery results could not be written; their claims will expire and they will be retried/);

    // Back: another worker makes the attempt again once the stopped one's claim has run out, and records it.
    await postgres.start(port);
    await expectMadeAgainByAnotherWorker(url, WORKER_ENV, db, delivery.id, receiver, (stop) => postgres.cleanup(stop));
  });
});
