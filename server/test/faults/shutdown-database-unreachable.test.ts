import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/embedded-postgres.js';
import { submitApp } from '../helpers/factories.js';
import { GraphQLTestClient } from '../helpers/graphql-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { TcpProxy } from './debian-postgres.js';
import { expectMadeAgainByAnotherWorker, openDatabase, purchaseEventProducer, restartablePostgres, startApiProcess, startWorkerProcess } from './fault-helpers.js';

// Each case its own database: a case's processes and proxy are cleaned up after the file, before its database stops.
const workerDatabase = restartablePostgres('unreachable-worker');
const apiDatabase = restartablePostgres('unreachable-api');

const GRACE_MS = 4_000;
/** What a stop may take past its grace: the worker's own moment to close (half a second), and a busy machine's process exit. */
const PAST_GRACE_MS = 3_000;
// The lease is far longer than grace plus bound, and the pool's connect timeout (10 s) longer than both, so the test tells them apart.
const WORKER_ENV = { SHUTDOWN_GRACE: `${GRACE_MS / 1000}s`, WEBHOOK_TIMEOUT: '5s', WEBHOOK_CLAIM_LEASE: '12s', WEBHOOK_RETRY_SCHEDULE: '500ms,500ms,500ms' };

// Unlike a stopped server (shutdown-database-down), an unreachable one refuses nothing: a connect waits for the pool's
// connect timeout, and a statement on an open connection waits for ever.
describe('a process that delivers, told to stop while the database is unreachable', () => {
  it.each([
    ['a worker (pnpm worker)', workerDatabase, (databaseUrl: string) => startWorkerProcess(databaseUrl, WORKER_ENV)],
    ['an API process that delivers too (RUN_WORKER=true)', apiDatabase, (databaseUrl: string) => startApiProcess(databaseUrl, { ...WORKER_ENV, RUN_WORKER: 'true' })],
  ])('%s exits within its grace, and the attempt whose result it could not write is made again by another worker', { timeout: 120_000 }, async (_, postgres, startDelivering) => {
    const port = await findFreePort();
    const database = await postgres.start(port);
    const url = database.url.replace(/\?host=.*$/, '');
    // The worker reaches the database through the proxy, as through a network that can partition.
    const proxy = await TcpProxy.start(port);
    postgres.cleanup(() => proxy.close());
    const workerUrl = url.replace(`:${port}/`, `:${proxy.port}/`);
    const api = await startApiProcess(url);
    postgres.cleanup(() => api.stop('SIGKILL'));
    const db = await openDatabase(url);
    postgres.cleanup(() => db.end());
    // The first request is answered only once the database is unreachable and the worker has been told to stop.
    let answerTheFirst!: () => void;
    const firstAnswerMayGo = new Promise<void>((resolve) => (answerTheFirst = resolve));
    const receiver = await WebhookReceiver.start((_, index) => ({ status: 200, body: 'ok', until: index === 0 ? firstAnswerMayGo : undefined }));
    const developer = await GraphQLTestClient.signIn(api.url, 'unreachable@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const worker = await startDelivering(workerUrl);
    postgres.cleanup(() => worker.stop('SIGKILL'));

    const producer = await purchaseEventProducer(url, app.id, developer.userId);
    const delivery = (await producer.purchase())!;
    await producer.close();
    await receiver.waitForRequests(1, 20_000);

    proxy.hang();
    const toldAt = Date.now();
    const stopping = worker.stop('SIGTERM');
    answerTheFirst();
    const exitCode = await stopping;
    const stopMs = Date.now() - toldAt;
    console.log(JSON.stringify({ graceMs: GRACE_MS, stopMs, exitCode }));
    expect(stopMs, worker.output()).toBeLessThan(GRACE_MS + PAST_GRACE_MS);
    expect(exitCode, worker.output()).toBe(0);
    expect(worker.output()).toMatch(/delivery results could not be written; their claims will expire and they will be retried/);

    // Another worker, which reaches the database, makes the attempt again once the stopped one's claim has run out.
    await expectMadeAgainByAnotherWorker(url, WORKER_ENV, db, delivery.id, receiver, (stop) => postgres.cleanup(stop));
  });
});
