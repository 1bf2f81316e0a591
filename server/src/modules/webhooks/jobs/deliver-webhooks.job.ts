import type { Agenda, Job } from 'agenda';
import { logger } from '../../../platform/logger.js';
import { JOB_LOCK_LIFETIME_MS } from '../../../platform/jobs.js';
import type { DeliveryEngine } from '../delivery-engine.js';

export const DELIVER_WEBHOOKS_JOB = 'deliver-webhooks';

/** Nothing in the job's data: each run claims whatever deliveries are due, so any worker can take it over. */
export type DeliverWebhooksJobData = Record<string, never>;

/** How long a run keeps watching for work after the last delivery, so bursts and near retries need no new job. */
const IDLE_MS = 10_000;

/**
 * Carries out webhook deliveries: one run claims due deliveries in batches and sends them until the
 * queue has been quiet for a while. One run per worker process at a time (concurrency 1); more
 * throughput comes from more worker processes, each with its own run.
 */
export function defineDeliverWebhooksJob(agenda: Agenda, engine: DeliveryEngine, lifecycle: { isStopping: () => boolean; onRunStarted: () => void; onRunEnded: () => void }) {
  agenda.define<DeliverWebhooksJobData>(
    DELIVER_WEBHOOKS_JOB,
    async (job: Job<DeliverWebhooksJobData>) => {
      lifecycle.onRunStarted();
      try {
        const sent = await engine.run({ idleMs: IDLE_MS, shouldStop: lifecycle.isStopping, keepAlive: () => job.touch() });
        logger.debug({ sent }, 'delivery run finished');
      } catch (err) {
        (err as Error).message = `${DELIVER_WEBHOOKS_JOB} job ${job.attrs._id ?? ''}: ${(err as Error).message}`;
        throw err;
      } finally {
        lifecycle.onRunEnded();
      }
    },
    { concurrency: 1, lockLifetime: JOB_LOCK_LIFETIME_MS },
  );
}
