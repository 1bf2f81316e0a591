import { Agenda } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { Config } from '../config.js';
import { connectionError, logger } from './logger.js';
import { whileHoldingSchemaLock } from './startup-lock.js';

/** Agenda holds a job this long without a sign of life before another worker takes it over. */
export const JOB_LOCK_LIFETIME_MS = 60_000;

/** How long a MongoDB job store may take to answer before start-up (or an operation) gives up. */
const MONGODB_CONNECT_TIMEOUT_MS = 10_000;

export interface JobRuntime {
  agenda: Agenda;
  /** Resolves when the job store answers (readiness). */
  ping(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Agenda with its job store in PostgreSQL (default) or MongoDB (JOBS_BACKEND=mongodb). Locks last
 * 60 seconds, not Agenda's 10 minutes, so a dead worker's job is taken over within a minute.
 */
export async function createJobRuntime(config: Config, databaseUrl: string, workerName: string, options: { poolSize?: number } = {}): Promise<JobRuntime> {
  let backend;
  let ping: () => Promise<unknown>;
  let closeStore: () => Promise<unknown>;
  let jobsPool: pg.Pool | undefined;
  if (config.jobsBackend === 'mongodb') {
    // Untested in CI: no MongoDB server can be installed on these machines (see README), so neither
    // this store nor its readiness ping runs there. Our own client, so readiness can ping it.
    const [{ MongoBackend }, { MongoClient }] = await Promise.all([import('@agendajs/mongo-backend'), import('mongodb')]);
    const mongo = new MongoClient(config.mongodbUrl!, { serverSelectionTimeoutMS: MONGODB_CONNECT_TIMEOUT_MS });
    // Connected here, and awaited: Agenda connects its backend without a catch, and an unreachable
    // server would otherwise surface as an unhandled rejection that kills the process mid-start.
    await mongo.connect().catch(async (err: Error) => {
      // Never connected: the error thrown below says why; closing the half-made client may fail as well.
      await mongo.close().catch(() => undefined);
      throw new Error(`the MongoDB job store at ${config.mongodbUrl!.replace(/\/\/[^@/]*@/, '//***@')} cannot be reached (JOBS_BACKEND=mongodb): ${err.message}`);
    });
    backend = new MongoBackend({ mongo: mongo.db(), collection: 'plaza_jobs', ensureIndex: true });
    ping = () => mongo.db().command({ ping: 1 });
    closeStore = () => mongo.close();
  } else {
    // Our own pool with an error listener: the backend's pool would crash the process when PostgreSQL restarts.
    // Plaza's jobs are few and long (a delivery run claims work in batches), so a small pool serves;
    // one connection of it holds the backend's LISTEN.
    const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 4 });
    pool.on('error', (err) => logger.warn({ error: connectionError(err) }, 'job store connection failed; it will reconnect'));
    backend = new PostgresBackend({ pool });
    jobsPool = pool;
    ping = () => pool.query('SELECT 1');
    closeStore = () => pool.end();
    // The backend's LISTEN connection reconnects by itself after PostgreSQL restarts, but it also emits
    // the drop as an 'error' event, and an emitter without an error listener crashes the process.
    backend.notificationChannel?.on('error', (err: Error) => logger.warn({ err: err.message }, 'job store notification channel failed; it reconnects'));
  }
  const createAgenda = () =>
    new Agenda({
      backend,
      name: workerName,
      processEvery: '1 second',
      defaultLockLifetime: JOB_LOCK_LIFETIME_MS,
      removeOnComplete: true,
    });
  let agenda: Agenda;
  if (jobsPool) {
    // Agenda creates its table, indexes and trigger function as it connects, unguarded: one process at a time.
    const session = await jobsPool.connect();
    try {
      agenda = await whileHoldingSchemaLock(session, async () => {
        const created = createAgenda();
        await created.ready;
        return created;
      });
    } finally {
      session.release();
    }
  } else {
    agenda = createAgenda();
    await agenda.ready;
  }
  agenda.on('error', (err: Error) => logger.error({ err }, 'job runtime error'));
  return {
    agenda,
    ping,
    close: async () => {
      // Callers end their own long runs first; stop() then unlocks queued jobs for other workers.
      // (drain() would wait for queued jobs that can no longer start.)
      await agenda.stop().catch((err: Error) => logger.warn({ err }, 'job runtime did not stop cleanly'));
      await closeStore().catch((err: Error) => logger.warn({ err }, 'job store did not close cleanly'));
    },
  };
}
