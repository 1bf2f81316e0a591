import type { JobRuntime } from '../../platform/jobs.js';
import { logger } from '../../platform/logger.js';
import type { DeliveryEngine } from './delivery-engine.js';
import { defineDeliverWebhooksJob, DELIVER_WEBHOOKS_JOB } from './jobs/deliver-webhooks.job.js';
import { defineRecoverDeliveriesJob, RECOVER_DELIVERIES_JOB, RECOVERY_INTERVAL } from './jobs/recover-deliveries.job.js';

// Agenda gives a queued run to whichever worker locks it first, so "queued by us" proves nothing about
// this process: only "running here" is tracked, and queueing is merely de-bounced.
const QUEUE_DEBOUNCE_MS = 1000;

/**
 * The deliveries' part of the job worker: keeps one delivery run going in this process while work
 * is due (woken by commits, and by a timer set to the next due retry) and the recovery pass.
 */
export function defineDeliveryWork(jobs: JobRuntime, engine: DeliveryEngine) {
  let stopping = false;
  let running = false;
  let runEnded: (() => void) | undefined;
  let lastQueuedAt = 0;
  let dueTimer: NodeJS.Timeout | undefined;

  const onDue = () => {
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
    if (ms === 0) onDue();
    dueTimer = setTimeout(() => {
      if (ms > 0 && ms < 1000) onDue();
      void watchNextDue();
    }, ms || 1000);
  };

  defineDeliverWebhooksJob(jobs.agenda, engine, {
    isStopping: () => stopping,
    onRunStarted: () => (running = true),
    onRunEnded: () => {
      running = false;
      lastQueuedAt = 0;
      runEnded?.();
      void watchNextDue();
    },
  });
  defineRecoverDeliveriesJob(jobs.agenda, engine, onDue);

  return {
    onDue,
    start: async () => {
      await jobs.agenda.every(RECOVERY_INTERVAL, RECOVER_DELIVERIES_JOB);
      onDue();
      void watchNextDue();
    },
    /**
     * Ends the run in this process: no more claims; attempts in flight finish and their results are
     * written, or, those still running after `graceMs`, are handed back to other workers.
     */
    stop: async (graceMs: number) => {
      stopping = true;
      clearTimeout(dueTimer);
      const deadline = setTimeout(() => void engine.handBack(), graceMs);
      try {
        if (running) {
          const ended = new Promise<void>((resolve) => (runEnded = resolve));
          engine.wake();
          await ended;
        }
        await engine.drain();
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
