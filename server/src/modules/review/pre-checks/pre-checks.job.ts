import type { JobRuntime } from '../../../platform/jobs.js';
import { logger } from '../../../platform/logger.js';
import type { PreCheckService } from './pre-checks.service.js';

export const RUN_PRE_CHECKS_JOB = 'run-review-pre-checks';
const SWEEP_INTERVAL = '30 seconds';
/** Wake-ups closer together than this share one run. */
const QUEUE_DEBOUNCE_MS = 100;

/** The pre-checks' part of the job worker: a run on every submission, and a sweep for any that were missed. */
export function definePreCheckWork(jobs: JobRuntime, preChecks: PreCheckService) {
  let queueTimer: NodeJS.Timeout | undefined;
  jobs.agenda.define(RUN_PRE_CHECKS_JOB, async () => {
    while ((await preChecks.runDue()) > 0);
  });
  jobs.agenda.define(`${RUN_PRE_CHECKS_JOB}:sweep`, async () => {
    if ((await preChecks.pendingCount()) > 0) onDue();
  });
  // Trailing edge: the run starts after every wake-up it covers, so none is lost to the de-bounce.
  const onDue = () => {
    queueTimer ??= setTimeout(() => {
      queueTimer = undefined;
      jobs.agenda.now(RUN_PRE_CHECKS_JOB, {}).catch((err: Error) => logger.warn({ err }, 'could not queue review pre-checks; the sweep will'));
    }, QUEUE_DEBOUNCE_MS);
  };
  return {
    onDue,
    start: async () => {
      await jobs.agenda.every(SWEEP_INTERVAL, `${RUN_PRE_CHECKS_JOB}:sweep`);
      onDue();
    },
    stop: () => clearTimeout(queueTimer),
  };
}
