import type { Response } from 'express';
import type { Logger } from 'pino';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable.js';
import { ErrorCode, serviceUnavailable, type PlazaError } from './errors.js';

/** Details beside the code: the input field at fault, a stable reason, seconds to wait. */
export type ErrorDetails = { field?: string; reason?: string; retryAfterSeconds?: number };

/**
 * The one shape every non-GraphQL route answers an error in, the one GraphQL answers with, so a client
 * reads `errors[0].message` and `errors[0].extensions.code` (and `field`) wherever it asked:
 * `{"errors":[{"message":"...","extensions":{"code":"...","field":"..."}}]}`.
 */
export function sendError(res: Response, status: number, code: ErrorCode, message: string, details: ErrorDetails = {}): void {
  res.status(status).json(errorBody(code, message, details));
}

/** The body sendError sends, for answers built before there is a response to send them on (/metrics on either server). */
export function errorBody(code: ErrorCode, message: string, details: ErrorDetails = {}) {
  return { errors: [{ message, extensions: { code, ...details } }] };
}

/** A PlazaError (a rate limit, a refused credential) answered over plain HTTP, with its own status. */
export function sendPlazaError(res: Response, error: PlazaError): void {
  res.status(error.httpStatus).json({ errors: [{ message: error.message, extensions: { ...error.extensions } }] });
}

/**
 * What an error no handler answered becomes over HTTP, for Express's last handler and the lean POST /graphql
 * path alike: a client's mistake (a status of 4xx, 413 being the body limit), the database unavailable
 * (503 with Retry-After), else a 500 that is logged with the request's logger.
 */
export function httpErrorAnswer(err: unknown, log: Logger): { status: number; headers: [string, string][]; body: ReturnType<typeof errorBody> } {
  const status = (err as { status?: number }).status;
  if (status === 413) return { status, headers: [], body: errorBody(ErrorCode.BAD_USER_INPUT, 'Request body is larger than 1 MB') };
  if (status && status >= 400 && status < 500) return { status, headers: [], body: errorBody(ErrorCode.BAD_USER_INPUT, (err as Error).message) };
  if (isDatabaseUnavailable(err)) {
    const unavailable = serviceUnavailable();
    return {
      status: unavailable.httpStatus,
      headers: [['retry-after', String(DATABASE_RETRY_AFTER_SECONDS)]],
      body: errorBody(unavailable.code, unavailable.message, { reason: 'DATABASE_UNAVAILABLE', retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }),
    };
  }
  log.error({ err }, 'unhandled HTTP error');
  return { status: 500, headers: [], body: errorBody(ErrorCode.INTERNAL_SERVER_ERROR, 'Something went wrong on our side; it has been logged.') };
}
