import { destination, pino } from 'pino';
import { settingAtLoad } from '../config.js';

/** Bytes of log lines waiting for stdout beyond which new lines are dropped (and counted) rather than held: about 100,000 access lines. */
export const LOG_BUFFER_LIMIT = 16 * 1024 * 1024;

/**
 * Log lines leave through pino's asynchronous destination: written by libuv's thread pool, the lines that arrive while
 * a write is under way going out together in the next one, instead of one synchronous write per line on the event
 * loop (about a tenth of the floor request's CPU in benchmark 5, and a stall of every request whenever stdout is slow).
 * The lines still waiting are written synchronously on any exit: pino's asynchronous destination flushes itself on
 * 'exit', which runs on process.exit (a normal stop, the hard deadline's exit) and after an uncaught exception, so
 * only a SIGKILL can lose them. A full pipe is retried, never dropped; only a stdout so slow that LOG_BUFFER_LIMIT
 * bytes pile up drops lines, and says how many once it catches up, so the process's memory stays bounded.
 */
const stdout = destination({ dest: 1, sync: false, maxLength: LOG_BUFFER_LIMIT });
let dropped = 0;
stdout.on('drop', () => void dropped++);
stdout.on('drain', () => {
  if (dropped === 0) return;
  logger.warn({ dropped }, 'log lines dropped: stdout did not keep up');
  dropped = 0;
});

/**
 * One structured logger (JSON lines on stdout). Anything that could carry a credential is redacted
 * by path as a second line of defence; the first is that secrets are never passed to the logger at all.
 * `err.client` is the pg client pg-pool attaches to an idle connection's error: its connection
 * parameters include the database password. `err.parameters` are a failed query's bound values.
 */
export const logger = pino(
  {
    // Made as modules load, before loadConfig: a bad LOG_LEVEL logs at the default until loadConfig refuses it at start-up.
    level: settingAtLoad('LOG_LEVEL'),
    redact: {
      paths: [
        '*.authorization',
        '*.cookie',
        '*.token',
        '*.secret',
        '*.clientSecret',
        '*.password',
        'req.headers.authorization',
        'req.headers.cookie',
        'err.client',
        'err.parameters',
        'err.driverError.client',
      ],
      censor: '[redacted]',
    },
  },
  stdout,
);

/**
 * What to log of a database connection error: never the error itself, which pg-pool decorates with
 * the whole client (connection parameters with the password, prepared statement texts). Logged
 * under `error`, not `err`, which pino's error serializer would dress with an empty stack.
 */
export function connectionError(err: Error & { code?: string; severity?: string }): { message: string; code?: string; severity?: string } {
  return { message: err.message, code: err.code, severity: err.severity };
}
