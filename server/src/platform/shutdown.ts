import { logger } from './logger.js';
import { flushTracing, flushTracingBeforeExit } from './tracing.js';

/** How long a hard exit waits for its last spans to reach the collector (none when not tracing). */
const HARD_EXIT_FLUSH_MS = 2000;

/**
 * SIGINT/SIGTERM handling for a Plaza process, installed before start-up finishes: a signal during
 * start-up waits for it, then stops in order; a second signal exits at once. A stop that takes longer
 * than `hardDeadlineMs` (something hangs, e.g. an unreachable database) exits with 1 rather than
 * outliving the orchestrator's patience; the delivery claims it held then expire with their lease. Either
 * way out sends the last spans first (a hard exit waits for them at most HARD_EXIT_FLUSH_MS).
 */
export function stopOnSignals(processName: string, started: Promise<{ stop(): Promise<void> }>, hardDeadlineMs: number): void {
  let signalled = false;
  let exitingHard = false;
  // The spans of what was cut off (an attempt in flight) are sent first, within a bound; asked again meanwhile, it exits at once.
  const exitHard = () => {
    if (exitingHard) process.exit(1);
    exitingHard = true;
    // Never rejects (a failed send is logged); the process exits either way.
    void flushTracingBeforeExit(HARD_EXIT_FLUSH_MS).finally(() => process.exit(1));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (signalled) {
        logger.warn({ signal }, `${processName} told again to stop; exiting now`);
        return exitHard();
      }
      signalled = true;
      logger.info({ signal }, `${processName} shutting down`);
      setTimeout(() => {
        logger.error({ hardDeadlineMs }, `${processName} did not stop in time; exiting`);
        exitHard();
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

/** What a stop may take past SHUTDOWN_GRACE to close what answers (sockets, pools): a few ms when the database answers. */
const CLOSING_MS = 500;

/** The end of a way out begun now: attempts in flight get the grace, and closing what answers a moment more. */
export const stopDeadline = (shutdownGraceMs: number): number => performance.now() + shutdownGraceMs + CLOSING_MS;

/**
 * Waits for `step` until `deadline` (performance.now()) at most. Past it the step is left unfinished and logged, and
 * the way out goes on: with the database unreachable, closing a pool waits for a connect or a statement that may
 * never end, and the process exits anyway (what it could not write is left to its claims' lease).
 */
export async function waitAtMostUntil(what: string, step: () => Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), Math.max(0, deadline - performance.now()))));
  const running = step();
  // A step left behind may still fail: nothing is waiting for it then.
  running.catch(() => undefined);
  try {
    if ((await Promise.race([running, cut])) !== 'cut') return true;
    logger.warn({ step: what }, 'shutdown: left unfinished at the end of the grace (the database may be unreachable)');
    return false;
  } finally {
    clearTimeout(timer);
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
