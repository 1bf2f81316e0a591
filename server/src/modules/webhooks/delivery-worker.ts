import { hostname } from 'node:os';
import pg from 'pg';
import type { Config } from '../../config.js';
import { createJobRuntime } from '../../platform/jobs.js';
import { logger } from '../../platform/logger.js';
import type { DeliveryEngine } from './delivery-engine.js';
import { defineDeliverWebhooksJob, DELIVER_WEBHOOKS_JOB } from './jobs/deliver-webhooks.job.js';
import { defineRecoverDeliveriesJob, RECOVER_DELIVERIES_JOB, RECOVERY_INTERVAL } from './jobs/recover-deliveries.job.js';
import { DELIVERIES_DUE_CHANNEL } from './webhook-events.service.js';

export interface DeliveryWorker {
  stop(): Promise<void>;
}

/**
 * Runs the delivery jobs in this process: listens for committed deliveries, keeps one delivery run
 * going (or scheduled for the next due retry) and the recovery pass on its interval.
 */
export async function startDeliveryWorker(config: Config, databaseUrl: string, engine: DeliveryEngine): Promise<DeliveryWorker> {
  const workerName = `${hostname()}:${process.pid}`;
  const jobs = await createJobRuntime(config, databaseUrl, workerName);
  let stopping = false;
  let running = false;
  let runEnded: (() => void) | undefined;
  let lastQueuedAt = 0;
  let dueTimer: NodeJS.Timeout | undefined;

  // Agenda gives a queued run to whichever worker locks it first, so "queued by us" proves nothing about
  // this process: only "running here" is tracked, and queueing is merely de-bounced.
  const QUEUE_DEBOUNCE_MS = 1000;
  const ensureDeliveryRun = () => {
    engine.wake();
    if (stopping || running || Date.now() - lastQueuedAt < QUEUE_DEBOUNCE_MS) return;
    lastQueuedAt = Date.now();
    jobs.agenda.now(DELIVER_WEBHOOKS_JOB, {}).catch((err: Error) => {
      lastQueuedAt = 0;
      logger.error({ err }, 'could not queue a delivery run; the next wake-up will try again');
    });
  };

  /** While no run is active here, wake up exactly when the next retry falls due (checking at least every second). */
  const watchNextDue = async () => {
    clearTimeout(dueTimer);
    if (stopping) return;
    let ms = 1000;
    try {
      if (!running) ms = await engine.msUntilNextDue();
    } catch (err) {
      logger.warn({ err }, 'could not read the delivery queue; trying again in a second');
    }
    if (ms === 0) ensureDeliveryRun();
    dueTimer = setTimeout(() => {
      if (ms > 0 && ms < 1000) ensureDeliveryRun();
      void watchNextDue();
    }, ms || 1000);
  };

  defineDeliverWebhooksJob(jobs.agenda, engine, {
    isStopping: () => stopping,
    onRunStarted: () => (running = true),
    onRunEnded: () => {
      running = false;
      runEnded?.();
      lastQueuedAt = 0;
      void watchNextDue();
    },
  });
  defineRecoverDeliveriesJob(jobs.agenda, engine, ensureDeliveryRun);

  await jobs.agenda.start();
  await jobs.agenda.every(RECOVERY_INTERVAL, RECOVER_DELIVERIES_JOB);

  // A commit anywhere NOTIFYs this channel; LISTEN on a connection of its own.
  const listener = new pg.Client({ connectionString: databaseUrl });
  listener.on('notification', ensureDeliveryRun);
  listener.on('error', (err) => logger.warn({ err }, 'delivery wake-up listener failed; the one-second check still runs'));
  await listener.connect();
  await listener.query(`LISTEN ${DELIVERIES_DUE_CHANNEL}`);

  ensureDeliveryRun();
  void watchNextDue();
  logger.info({ workerName, jobsBackend: config.jobsBackend }, 'delivery worker started');

  return {
    stop: async () => {
      stopping = true;
      clearTimeout(dueTimer);
      await listener.end().catch(() => undefined);
      // The run sees `stopping`, finishes its attempts in flight and writes their results.
      if (running) {
        const ended = new Promise<void>((resolve) => (runEnded = resolve));
        engine.wake();
        await ended;
      }
      await jobs.close();
      await engine.drain();
    },
  };
}
