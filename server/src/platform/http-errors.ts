import type { Response } from 'express';
import type { ErrorCode, PlazaError } from './errors.js';

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
