import { logger } from './logger.js';

/**
 * SIGINT/SIGTERM handling for a Plaza process, installed before start-up finishes: a signal during
 * start-up waits for it, then stops in order; a second signal exits at once. A stop that takes longer
 * than `hardDeadlineMs` (something hangs, e.g. an unreachable database) exits with 1 rather than
 * outliving the orchestrator's patience; the delivery claims it held then expire with their lease.
 */
export function stopOnSignals(processName: string, started: Promise<{ stop(): Promise<void> }>, hardDeadlineMs: number): void {
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      logger.info({ signal }, `${processName} shutting down`);
      setTimeout(() => {
        logger.error({ hardDeadlineMs }, `${processName} did not stop in time; exiting`);
        process.exit(1);
      }, hardDeadlineMs).unref();
      started
        .then((running) => running.stop())
        .then(
          () => process.exit(0),
          (err) => {
            logger.error({ err }, `${processName} shutdown failed`);
            process.exit(1);
          },
        );
    });
  }
}
