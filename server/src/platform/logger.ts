import { hostname } from 'node:os';
import { destination, pino, type LoggerOptions } from 'pino';
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
export const LOGGER_OPTIONS = {
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
} satisfies LoggerOptions;

export const logger = pino(LOGGER_OPTIONS, stdout);

/** What pino writes after the level and time on every line of this process: its default `base`, the pid and hostname. */
const BASE_FIELDS = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

/** The fields of a request's access line, in the order they are written. */
export interface AccessLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The response closed before it finished (the client went away, or the server stopped). */
  aborted: boolean;
}

/**
 * The access line, the one line every request writes, as text: the bytes pino writes for
 * `logger.child({ requestId }).info({ method, path, status, durationMs }, 'request')` at `time` (access-line.test
 * compares the two). Its fields are fixed and none can carry a credential (the path has no query string, the request
 * id is a checked token), so pino's redaction could find nothing in it; in a profile of a response-cache hit
 * (benchmark 5) that redaction, a child logger per request and pino's formatting took 17% of the server thread.
 */
export function accessLineText(time: number, line: AccessLine): string {
  return (
    `{"level":30,"time":${time}${BASE_FIELDS},"requestId":${JSON.stringify(line.requestId)},"method":${JSON.stringify(line.method)},` +
    `"path":${JSON.stringify(line.path)},"status":${line.status},"durationMs":${line.durationMs}${line.aborted ? ',"aborted":true' : ''},"msg":"request"}\n`
  );
}

/** Writes a request's access line at info, onto pino's own destination, so it keeps its place among the other lines. */
export function writeAccessLine(line: AccessLine): void {
  if (logger.isLevelEnabled('info')) stdout.write(accessLineText(Date.now(), line));
}

/**
 * What to log of a database connection error: never the error itself, which pg-pool decorates with
 * the whole client (connection parameters with the password, prepared statement texts). Logged
 * under `error`, not `err`, which pino's error serializer would dress with an empty stack.
 */
export function connectionError(err: Error & { code?: string; severity?: string }): { message: string; code?: string; severity?: string } {
  return { message: err.message, code: err.code, severity: err.severity };
}
