import type { Agenda, Job } from 'agenda';
import { logger } from '../../../platform/logger.js';
import { JOB_LOCK_LIFETIME_MS } from '../../../platform/jobs.js';

export const DELIVER_WEBHOOKS_JOB = 'deliver-webhooks';

/** Nothing in the job's data: each run claims whatever deliveries are due, so any worker can take it over. */
export type DeliverWebhooksJobData = Record<string, never>;

/**
 * Carries out webhook deliveries: one run (`run`, DeliveryRunner's) claims due deliveries in batches
 * and sends them until the queue has been quiet for a while; `keepAlive` renews the job's lock. One
 * run per worker process at a time (concurrency 1); more throughput comes from more worker
 * processes, each with its own run.
 */
export function defineDeliverWebhooksJob(agenda: Agenda, run: (keepAlive: () => Promise<void>) => Promise<number>) {
  agenda.define<DeliverWebhooksJobData>(
    DELIVER_WEBHOOKS_JOB,
    async (job: Job<DeliverWebhooksJobData>) => {
      try {
        const sent = await run(() => job.touch());
        logger.debug({ sent }, 'delivery run finished');
      } catch (err) {
        (err as Error).message = `${DELIVER_WEBHOOKS_JOB} job ${job.attrs._id ?? ''}: ${(err as Error).message}`;
        throw err;
      }
    },
    { concurrency: 1, lockLifetime: JOB_LOCK_LIFETIME_MS },
  );
}
