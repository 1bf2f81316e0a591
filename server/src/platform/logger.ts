import { pino } from 'pino';

/**
 * One structured logger. Anything that could carry a credential is redacted by path as a second
 * line of defence; the first is that secrets are never passed to the logger at all.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'warn' : 'info'),
  redact: {
    paths: ['*.authorization', '*.cookie', '*.token', '*.secret', '*.clientSecret', '*.password', 'req.headers.authorization', 'req.headers.cookie'],
    censor: '[redacted]',
  },
});
