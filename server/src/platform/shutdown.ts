import { logger } from './logger.js';

/**
 * SIGINT/SIGTERM handling for a Plaza process, installed before start-up finishes: a signal during
 * start-up waits for it, then stops in order; a second signal exits at once.
 */
export function stopOnSignals(processName: string, started: Promise<{ stop(): Promise<void> }>): void {
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      logger.info({ signal }, `${processName} shutting down`);
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
