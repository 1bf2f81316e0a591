import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { logger, writeAccessLine } from './logger.js';

/** A caller's id is kept only when it is a plain token, so it cannot forge log lines or carry a payload. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every HTTP request an id (the caller's X-Request-Id when sane, else a new one), echoes it in
 * the response, keeps a child logger carrying it for the request's handlers (`requestLogger`), and
 * writes one access line when the response ends. The line names the path only: the query string, headers
 * and cookies can carry credentials and are never logged.
 */
export function requestLog(req: Request, res: Response, next: NextFunction): void {
  const requestId = requestIdFrom(req.get('x-request-id'));
  res.setHeader('x-request-id', requestId);
  const log = logger.child({ requestId });
  const started = process.hrtime.bigint();
  // Read now: a mounted router (app.use('/graphql', …)) rewrites req.path before the response ends.
  const { method, path } = req;
  let logged = false;
  const done = () => {
    if (logged) return;
    logged = true;
    logAccess(requestId, method, path, res.statusCode, started, res.writableFinished);
  };
  res.once('finish', done);
  res.once('close', done);
  res.locals.log = log;
  next();
}

/** The one access line of a request (requestLog's, and the lean POST /graphql path's), from its start (process.hrtime.bigint()). */
export function logAccess(requestId: string, method: string, path: string, status: number, started: bigint, finished: boolean): void {
  const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
  // A response that closed without finishing was cut off (the client went away, or the server stopped).
  writeAccessLine({ requestId, method, path, status, durationMs, aborted: !finished });
}

/** The caller's X-Request-Id when sane, else a new one (HTTP requests and WebSocket upgrades alike). */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The logger of the request `res` answers (its lines carry the request id), or the process logger.
 * Handed along explicitly rather than through AsyncLocalStorage, whose promise hooks cost every
 * promise in the process about a tenth of the API's throughput (benchmark 5, measured A/B).
 */
export function requestLogger(res: Response): Logger {
  return (res.locals.log as Logger | undefined) ?? logger;
}
