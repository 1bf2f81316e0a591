import { PgBoss } from 'pg-boss';
import { createJobRuntime } from '../platform/jobs.js';
import { findFreePort } from '../platform/embedded-postgres.js';
import type { RunningPlaza } from '../app/plaza.js';
import { commitEvents, createApps, warmUpEvents, startBenchDatabase, startBenchPlaza, startReceiver, waitForVerified, waitUntilNone } from './harness.js';
import { deliverOnce } from './straightforward-delivery.js';

const APPS = 10;
/** Jobs in flight per design: generous, so neither baseline is held back by its setting. */
const JOB_CONCURRENCY = 50;

type Enqueue = (deliveryId: string) => Promise<unknown>;

/**
 * Commits `events` events through recordEvent, `eventsPerTransaction` to a transaction, as Plaza's own
 * run does (Plaza's engine switched off), hands each delivery
 * to `start`'s queue after its commit, and times first commit to last verified receipt.
 */
async function runBaseline(
  events: number,
  eventsPerTransaction: number,
  start: (plaza: RunningPlaza, databaseUrl: string) => Promise<{ enqueue: Enqueue; stop: () => Promise<void> }>,
): Promise<number> {
  const database = await startBenchDatabase();
  const port = await findFreePort();
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const { appIds, secretsByAppId } = await createApps(plaza, APPS, `http://127.0.0.1:${port}/bench/webhook`);
  const receiver = await startReceiver(secretsByAppId, { port });
  const queue = await start(plaza, database.databaseUrl);
  const deliver = async (count: number) => {
    await receiver.reset();
    const started = performance.now();
    await commitEvents(plaza, appIds, count, { eventsPerTransaction, afterCommit: (delivery) => queue.enqueue(delivery.id) });
    const finished = await waitForVerified(receiver, count, 600_000);
    // Let the last jobs record their attempts before their queue stops under them.
    await waitUntilNone(plaza, ['PENDING'], 60_000);
    return count / ((finished - started) / 1000);
  };
  try {
    // Untimed, as Plaza's own runs: JIT compilation, pools and caches filling.
    await deliver(warmUpEvents(events));
    return await deliver(events);
  } finally {
    await queue.stop();
    await receiver.close();
    await plaza.stop();
    await database.close();
  }
}

/** (b) One Agenda job per delivery: the straightforward design on the same job store Plaza uses. */
export function agendaPerDeliveryBenchmark(events: number, eventsPerTransaction: number): Promise<number> {
  return runBaseline(events, eventsPerTransaction, async (plaza, databaseUrl) => {
    const { services } = plaza;
    // As many job-store connections as Plaza's own pool: one job per delivery needs them, and fewer would handicap it.
    const jobs = await createJobRuntime(services.config, databaseUrl, 'bench-agenda', { poolSize: 20 });
    jobs.agenda.maxConcurrency(JOB_CONCURRENCY);
    jobs.agenda.define<{ deliveryId: string }>('bench-deliver-one', (job) => deliverOnce(services.db, services.http, services.config.encryptionKeys, job.attrs.data.deliveryId), {
      concurrency: JOB_CONCURRENCY,
    });
    await jobs.agenda.start();
    return { enqueue: (deliveryId) => jobs.agenda.now('bench-deliver-one', { deliveryId }), stop: () => jobs.close() };
  });
}

/** (c) pg-boss running the same delivery function, one job per delivery, woken by NOTIFY. */
export function pgBossBenchmark(events: number, eventsPerTransaction: number): Promise<number> {
  return runBaseline(events, eventsPerTransaction, async (plaza, databaseUrl) => {
    const { services } = plaza;
    const boss = new PgBoss(databaseUrl);
    boss.on('error', () => undefined);
    await boss.start();
    await boss.createQueue('bench-deliver-one', { notify: true } as never);
    await boss.work<{ deliveryId: string }>('bench-deliver-one', { localConcurrency: JOB_CONCURRENCY, batchSize: 1, pollingIntervalSeconds: 0.5 } as never, async (jobs) => {
      for (const job of jobs) await deliverOnce(services.db, services.http, services.config.encryptionKeys, job.data.deliveryId);
    });
    return { enqueue: (deliveryId) => boss.send('bench-deliver-one', { deliveryId }), stop: () => boss.stop({ graceful: false }) };
  });
}
