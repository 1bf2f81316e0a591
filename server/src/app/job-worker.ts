import { hostname } from 'node:os';
import type { Config } from '../config.js';
import { PreCheckRunner, PRE_CHECKS_DUE_CHANNEL } from '../modules/review/index.js';
import {
  DeliveryRunner,
  DELIVERIES_DUE_CHANNEL,
  ensureAttemptPartitions,
  ensureEventPartitions,
  definePruneAttemptsJob,
  PRUNE_ATTEMPTS_JOB,
  PRUNE_INTERVAL,
} from '../modules/webhooks/index.js';
import { createJobRuntime } from '../platform/jobs.js';
import { listenContinuously } from '../platform/listen-connection.js';
import { logger } from '../platform/logger.js';
import { waitAtMostUntil } from '../platform/shutdown.js';
import { endOpenSpansAsInterrupted } from '../platform/tracing.js';
import type { Services } from './services.js';

export interface JobWorker {
  stop(): Promise<void>;
}

/**
 * Stops `worker` (attempts in flight finish or are handed back) by `deadline` at most. What it could not hand back by
 * then is cut off: its traces say so, not the error of the sockets closed next.
 */
export async function stopJobWorkerBy(worker: JobWorker, deadline: number): Promise<void> {
  if (!(await waitAtMostUntil('the job worker', () => worker.stop(), deadline))) endOpenSpansAsInterrupted();
}

/**
 * The background work of a Plaza process (all of `pnpm worker`, or part of `pnpm start`): webhook
 * deliveries, review pre-checks and the pruning of old attempts, as Agenda jobs, woken by NOTIFY from the transactions that need them.
 */
export async function startJobWorker(config: Config, databaseUrl: string, services: Services): Promise<JobWorker> {
  const workerName = `${hostname()}:${process.pid}`;
  // Before the first delivery: a fresh database (or one whose worker was down for days) has no partition for
  // today's attempts yet. Not fatal: attempts then go to the default partition, and the hourly job tries again.
  await ensureAttemptPartitions(services.db).catch((err: Error) => logger.warn({ err }, 'could not create the webhook attempt partitions ahead'));
  await ensureEventPartitions(services.db).catch((err: Error) => logger.warn({ err }, 'could not create the webhook event partitions ahead'));
  const jobs = await createJobRuntime(config, databaseUrl, workerName);
  const deliveries = new DeliveryRunner(jobs, services.webhookEngine, services.deliveryRecovery, () => services.webhookHealth.sweep());
  const preChecks = new PreCheckRunner(jobs, services.preChecks);
  let stopping = false;
  definePruneAttemptsJob(jobs.agenda, services.db, config.webhookAttemptRetentionMs, () => stopping, config.webhookBodyRetentionMs);
  await jobs.agenda.start();
  await deliveries.start();
  await preChecks.start();
  await jobs.agenda.every(PRUNE_INTERVAL, PRUNE_ATTEMPTS_JOB);

  const wakeUps: Record<string, () => void> = { [DELIVERIES_DUE_CHANNEL]: deliveries.onDue, [PRE_CHECKS_DUE_CHANNEL]: preChecks.onDue };
  const listener = await listenContinuously({
    databaseUrl,
    channels: Object.keys(wakeUps),
    purpose: 'job wake-up listener (timers and sweeps still run)',
    onNotification: (message) => wakeUps[message.channel]?.(),
    // Commits made while the connection was down woke no one: look for due work now.
    onReconnected: () => Object.values(wakeUps).forEach((wake) => wake()),
  });

  // A process that runs jobs is ready only while it can reach their store too.
  services.readiness.add('jobStore', jobs.ping);
  logger.info({ workerName, jobsBackend: config.jobsBackend }, 'delivery worker started');
  return {
    stop: async () => {
      stopping = true;
      // Not waited for before the deliveries' grace starts: with the database unreachable, ending the LISTEN
      // connection waits for an answer that may never come (a wake-up meanwhile finds the runner stopping).
      const listenerClosed = listener.close();
      preChecks.stop();
      await deliveries.stop(config.shutdownGraceMs);
      await listenerClosed;
      await jobs.close();
    },
  };
}
