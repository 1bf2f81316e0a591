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
    // lockLimit 1 as well as concurrency 1: while this process's run goes on, a run another worker asked for
    // stays free for that worker. Agenda would otherwise lock it here, where it cannot start, for a lock's
    // lifetime (a minute), and the worker that asked would sit idle while this one sends everything.
    { concurrency: 1, lockLimit: 1, lockLifetime: JOB_LOCK_LIFETIME_MS },
  );
}
