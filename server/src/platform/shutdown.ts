import { logger } from './logger.js';
import { flushTracing } from './tracing.js';

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
          // The spans of the work that just ended are sent before the process goes (nothing to send when not tracing).
          () => flushTracing().then(() => process.exit(0)),
          (err) => {
            logger.error({ err }, `${processName} shutdown failed`);
            return flushTracing().then(() => process.exit(1));
          },
        );
    });
  }
}

/**
 * Runs a start-up step, failing it as well when something it set going fails out of band meanwhile (an
 * unhandled rejection or uncaught exception: e.g. a library's connect promise nobody awaits), so the
 * caller can stop what it started and report one line, instead of the process dying with a stack and
 * leaving its embedded PostgreSQL running.
 */
export async function failOnStrayErrors<T>(step: () => Promise<T>): Promise<T> {
  let fail!: (err: unknown) => void;
  const stray = new Promise<never>((_, reject) => (fail = reject));
  process.on('unhandledRejection', fail);
  process.on('uncaughtException', fail);
  try {
    return await Promise.race([step(), stray]);
  } finally {
    process.off('unhandledRejection', fail);
    process.off('uncaughtException', fail);
  }
}

/** An error as one line for a boot failure: its message, whitespace folded, without a stack. */
export function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.replace(/\s+/g, ' ').trim();
}
