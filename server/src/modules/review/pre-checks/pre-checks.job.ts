import type { Agenda } from 'agenda';

export const RUN_PRE_CHECKS_JOB = 'run-review-pre-checks';
export const SWEEP_PRE_CHECKS_JOB = `${RUN_PRE_CHECKS_JOB}:sweep`;
export const SWEEP_INTERVAL = '30 seconds';

/**
 * Runs review pre-checks: one run (`run`, PreCheckRunner's) claims pending ones in small batches and checks
 * them until none is left. Nothing in the job's data: any worker can take any run.
 */
export function defineRunPreChecksJob(agenda: Agenda, run: () => Promise<number>) {
  agenda.define(RUN_PRE_CHECKS_JOB, async () => {
    await run();
  });
}

/** The safety net under the NOTIFY wake-ups: every 30 seconds, pending pre-checks nobody is running get a run. */
export function defineSweepPreChecksJob(agenda: Agenda, pendingCount: () => Promise<number>, ensureRun: () => void) {
  agenda.define(SWEEP_PRE_CHECKS_JOB, async () => {
    if ((await pendingCount()) > 0) ensureRun();
  });
}
