import { setTimeout as sleep } from 'node:timers/promises';
import { settingAtLoad } from '../../config.js';

/** What a paced backfill did: its batches, the time they took, and the time it rested between them. */
export interface PacedRun {
  batches: number;
  workMs: number;
  restMs: number;
}

/**
 * Runs `batch` until it returns false (nothing left), resting after each for as long as it took times
 * (100 - dutyPercent) / dutyPercent: the backfill works dutyPercent of its wall time. A batch's writes share the
 * disk and the CPU with the business writes of the processes still serving (the previous release's among them);
 * at full speed a backfill on a large history kept the disk so busy that a single purchase's insert took seconds
 * with no lock waited on. Resting in proportion rather than for a fixed time follows the machine: a busier
 * database makes each batch slower and so the rest longer. 100 never rests.
 */
export async function pacedBatches(batch: () => Promise<boolean>, dutyPercent: number = settingAtLoad('MIGRATION_BACKFILL_DUTY_PERCENT')): Promise<PacedRun> {
  const run: PacedRun = { batches: 0, workMs: 0, restMs: 0 };
  for (;;) {
    const started = performance.now();
    const more = await batch();
    const took = performance.now() - started;
    run.batches += 1;
    run.workMs += took;
    if (!more) return run;
    const rest = (took * (100 - dutyPercent)) / dutyPercent;
    if (rest >= 1) {
      const resting = performance.now();
      await sleep(rest);
      run.restMs += performance.now() - resting;
    }
  }
}
