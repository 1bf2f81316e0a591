import { PgBoss } from 'pg-boss';
import { createJobRuntime } from '../platform/jobs.js';
import { findFreePort } from '../platform/embedded-postgres.js';
import type { RunningPlaza } from '../app/plaza.js';
import { commitEvents, createApps, warmUpEvents, startBenchDatabase, startBenchPlaza, startReceiver, waitForVerified, waitUntilNone } from './harness.js';
import { countCpu, type CpuPerUnit } from './server-process.js';
import { deliverOnce } from './straightforward-delivery.js';

const APPS = 10;

/** A baseline's timed run: first commit to last verified receipt, and the CPU it took per delivery. */
export interface BaselineRun {
  perSecond: number;
  cpuMsPerDelivery: CpuPerUnit | null;
}

/** Hands a committed transaction's deliveries to the design's queue. */
type Enqueue = (deliveryIds: string[]) => Promise<unknown>;

/**
 * Commits `events` events through recordEvent, `eventsPerTransaction` to a transaction, as Plaza's own
 * run does (Plaza's engine switched off), hands each transaction's deliveries to `start`'s queue after
 * its commit, and times first commit to last verified receipt.
 */
async function runBaseline(
  events: number,
  eventsPerTransaction: number,
  start: (plaza: RunningPlaza, databaseUrl: string) => Promise<{ enqueue: Enqueue; stop: () => Promise<void> }>,
): Promise<BaselineRun> {
  const database = await startBenchDatabase();
  const port = await findFreePort();
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const { appIds, secretsByAppId } = await createApps(plaza, APPS, `http://127.0.0.1:${port}/bench/webhook`);
  const receiver = await startReceiver(secretsByAppId, { port });
  const queue = await start(plaza, database.databaseUrl);
  const deliver = async (count: number): Promise<BaselineRun> => {
    await receiver.reset();
    const cpu = countCpu();
    const started = performance.now();
    await commitEvents(plaza, appIds, count, { eventsPerTransaction, afterTransaction: (deliveries) => queue.enqueue(deliveries.map((d) => d.id)) });
    const finished = await waitForVerified(receiver, count, 600_000);
    const cpuMsPerDelivery = cpu.per(count);
    // Let the last jobs record their attempts before their queue stops under them.
    await waitUntilNone(plaza, ['PENDING'], 60_000);
    return { perSecond: count / ((finished - started) / 1000), cpuMsPerDelivery };
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

/**
 * Agenda's documented knobs (agenda 6.2.6, AgendaOptions and define()'s options): how often it polls
 * (`processEvery`; new jobs also wake it through the PostgreSQL backend's NOTIFY), how many jobs run at
 * once (`maxConcurrency` globally, `concurrency` per job name) and how many it may hold locked
 * (`lockLimit`, 0 = no limit). Agenda 6 has no call that creates many jobs at once: `now()` is one
 * insert (and one NOTIFY) per job, made either one after another by each producer or concurrently for a
 * transaction's jobs.
 */
export interface AgendaSettings {
  processEveryMs: number;
  concurrency: number;
  lockLimit: number;
  createConcurrently: boolean;
}

/** The best of the settings tried (BENCHMARKS.md lists them with their rates); `tune-baselines.ts` tries them again. */
export const AGENDA_BEST: AgendaSettings = { processEveryMs: 100, concurrency: 50, lockLimit: 0, createConcurrently: false };

export const agendaSettingsText = (s: AgendaSettings) =>
  `processEvery ${s.processEveryMs} ms, maxConcurrency = concurrency ${s.concurrency}, lockLimit ${s.lockLimit || 'none'}, ${s.createConcurrently ? "a transaction's jobs created concurrently" : 'jobs created one after another by each of the 16 producers'}`;

/** (b) One Agenda job per delivery: the straightforward design on the same job store Plaza uses. */
export function agendaPerDeliveryBenchmark(events: number, eventsPerTransaction: number, settings: AgendaSettings = AGENDA_BEST): Promise<BaselineRun> {
  return runBaseline(events, eventsPerTransaction, async (plaza, databaseUrl) => {
    const { services } = plaza;
    // As many job-store connections as Plaza's own pool: one job per delivery needs them, and fewer would handicap it.
    const jobs = await createJobRuntime(services.config, databaseUrl, 'bench-agenda', { poolSize: 20 });
    jobs.agenda.processEvery(settings.processEveryMs).maxConcurrency(settings.concurrency).lockLimit(settings.lockLimit);
    jobs.agenda.define<{ deliveryId: string }>('bench-deliver-one', (job) => deliverOnce(services.db, services.http, services.config.encryptionKeys, job.attrs.data.deliveryId), {
      concurrency: settings.concurrency,
    });
    await jobs.agenda.start();
    return {
      enqueue: async (deliveryIds) => {
        if (settings.createConcurrently) return Promise.all(deliveryIds.map((deliveryId) => jobs.agenda.now('bench-deliver-one', { deliveryId })));
        for (const deliveryId of deliveryIds) await jobs.agenda.now('bench-deliver-one', { deliveryId });
      },
      stop: () => jobs.close(),
    };
  });
}

/**
 * pg-boss's documented throughput knobs (pg-boss 12.35, WorkOptions): `batchSize` jobs per fetch, handled
 * concurrently by the handler (the maintainer's advice: `Promise.all(jobs.map(handler))`) and completed
 * with one statement; `localConcurrency` workers fetching independently; `burstWhenBatchFull`, its fetch
 * loop that fetches again at once while batches come back full; LISTEN/NOTIFY (`useListenNotify` and
 * the queue's `notify`) to wake idle workers; jobs created with `insert()`, one statement per transaction's jobs.
 */
export interface PgBossSettings {
  batchSize: number;
  localConcurrency: number;
}

/** The best of the settings tried (BENCHMARKS.md lists them with their rates); `tune-baselines.ts` tries them again. */
export const PG_BOSS_BEST: PgBossSettings = { batchSize: 100, localConcurrency: 2 };

export const pgBossSettingsText = (s: PgBossSettings) =>
  `batchSize ${s.batchSize} handled concurrently, localConcurrency ${s.localConcurrency}, burstWhenBatchFull, LISTEN/NOTIFY, insert() per transaction`;

/** (c) pg-boss running the same delivery function, one job per delivery. */
export function pgBossBenchmark(events: number, eventsPerTransaction: number, settings: PgBossSettings = PG_BOSS_BEST): Promise<BaselineRun> {
  return runBaseline(events, eventsPerTransaction, async (plaza, databaseUrl) => {
    const { services } = plaza;
    // A connection for its LISTEN, one per worker's fetch and completion, and room for insert(), as Plaza's pool has 20.
    const boss = new PgBoss({ connectionString: databaseUrl, useListenNotify: true, max: 20 });
    boss.on('error', () => undefined);
    await boss.start();
    await boss.createQueue('bench-deliver-one', { notify: true });
    await boss.work<{ deliveryId: string }>(
      'bench-deliver-one',
      { batchSize: settings.batchSize, localConcurrency: settings.localConcurrency, burstWhenBatchFull: true, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
      (jobs) => Promise.all(jobs.map((job) => deliverOnce(services.db, services.http, services.config.encryptionKeys, job.data.deliveryId))),
    );
    return {
      enqueue: (deliveryIds) =>
        boss.insert(
          'bench-deliver-one',
          deliveryIds.map((deliveryId) => ({ data: { deliveryId } })),
        ),
      stop: () => boss.stop({ graceful: false }),
    };
  });
}
