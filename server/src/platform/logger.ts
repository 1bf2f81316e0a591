import { pino } from 'pino';
import { settingAtLoad } from '../config.js';

/**
 * One structured logger (JSON lines on stdout). Anything that could carry a credential is redacted
 * by path as a second line of defence; the first is that secrets are never passed to the logger at all.
 * `err.client` is the pg client pg-pool attaches to an idle connection's error: its connection
 * parameters include the database password. `err.parameters` are a failed query's bound values.
 */
export const logger = pino({
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
});

/**
 * What to log of a database connection error: never the error itself, which pg-pool decorates with
 * the whole client (connection parameters with the password, prepared statement texts). Logged
 * under `error`, not `err`, which pino's error serializer would dress with an empty stack.
 */
export function connectionError(err: Error & { code?: string; severity?: string }): { message: string; code?: string; severity?: string } {
  return { message: err.message, code: err.code, severity: err.severity };
}
