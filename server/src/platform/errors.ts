import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import type { ValidationError } from 'class-validator';
import type { Logger } from 'pino';
import { logger } from './logger.js';

/** The error codes of the API contract; every error a client sees carries one of them. */
export const ErrorCode = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const HTTP_STATUS: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
};

/** An expected failure, written for people, with the contract code and (for bad input) the field. */
export class PlazaError extends GraphQLError {
  /** `reason` is a stable machine-readable detail beside the code, e.g. INSUFFICIENT_POINTS. */
  constructor(code: ErrorCode, message: string, field?: string, reason?: string) {
    super(message, { extensions: { code, ...(field ? { field } : {}), ...(reason ? { reason } : {}) } });
  }
  get code(): ErrorCode {
    return this.extensions.code as ErrorCode;
  }
  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }
}

export const badInput = (field: string, message: string) => new PlazaError(ErrorCode.BAD_USER_INPUT, message, field);
export const notFound = (what: string) => new PlazaError(ErrorCode.NOT_FOUND, `${what} was not found`);
export const forbidden = (message: string) => new PlazaError(ErrorCode.FORBIDDEN, message);
export const conflict = (message: string, reason?: string) => new PlazaError(ErrorCode.CONFLICT, message, undefined, reason);
export const unauthenticated = (message = 'Sign in to do this') => new PlazaError(ErrorCode.UNAUTHENTICATED, message);

/** The first failing field of a class-validator result, as a dotted path below the input object. */
function firstFailure(errors: ValidationError[], prefix = ''): { field: string; message: string } | undefined {
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const message = error.constraints ? Object.values(error.constraints)[0] : undefined;
    if (message) return { field, message };
    const nested = firstFailure(error.children ?? [], field);
    if (nested) return nested;
  }
  return undefined;
}

/** Graphql-js reports variable coercion failures with the path at "input.field"; keep that field. */
function fieldFromCoercionMessage(message: string): string | undefined {
  const at = /at "[^".]+\.([^"]+)"/.exec(message) ?? /Field "([^"]+)" of required type/.exec(message);
  return at?.[1];
}

/** Where formatError reports an unexpected error: a logger (the request's, so the line carries its id), or nowhere. */
export type UnexpectedErrorLog = Logger | null;

/**
 * The single place where errors become what clients see: contract codes, the offending field for
 * bad input, and nothing internal. Unexpected errors are masked and logged with their stack to `log`
 * (null: the caller logs them itself, as the HTTP server does with the request's own logger).
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown, log: UnexpectedErrorLog = logger): GraphQLFormattedError {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof PlazaError) {
    return { message: original.message, locations: formatted.locations, path: formatted.path, extensions: { ...original.extensions } };
  }
  if (original instanceof ArgumentValidationError) {
    const failure = firstFailure(original.extensions.validationErrors as unknown as ValidationError[]);
    return {
      message: failure?.message ?? 'The input is not valid',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ErrorCode.BAD_USER_INPUT, ...(failure ? { field: failure.field } : {}) },
    };
  }
  const code = formatted.extensions?.code;
  if (code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED' || code === 'GRAPHQL_PARSE_FAILED' || code === 'BAD_REQUEST' || code === 'PERSISTED_QUERY_NOT_SUPPORTED' || code === 'OPERATION_RESOLUTION_FAILURE') {
    // Malformed documents and variables are the caller's input too; keep the message graphql-js wrote.
    const given = formatted.extensions?.field;
    const field = typeof given === 'string' ? given : fieldFromCoercionMessage(formatted.message);
    // Plaza's own limits (depth, aliases, cost) say which one with a reason.
    const reason = formatted.extensions?.reason;
    return { message: formatted.message, locations: formatted.locations, extensions: { code: ErrorCode.BAD_USER_INPUT, ...(field ? { field } : {}), ...(typeof reason === 'string' ? { reason } : {}) } };
  }
  if (typeof code === 'string' && code in ErrorCode && code !== ErrorCode.INTERNAL_SERVER_ERROR) {
    // Errors raised before execution (a bad credential, a rate limit, a cost limit) arrive as plain
    // GraphQLErrors with a contract code; their details (reason, retryAfterSeconds) stay, transport ones go.
    const { http: _http, stacktrace: _stacktrace, ...details } = formatted.extensions ?? {};
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { ...details, code } };
  }
  log?.error({ err: original, path: formatted.path }, 'unexpected error in a GraphQL operation');
  return { message: 'Something went wrong on our side; it has been logged.', path: formatted.path, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
}
