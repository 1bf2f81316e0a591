import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import type { ValidationError } from 'class-validator';
import type { Logger } from 'pino';
import { logger } from './logger.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, unavailableReason } from './database-unavailable.js';

/** The error codes of the API contract; every error a client sees carries one of them. */
export const ErrorCode = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** The database cannot serve right now (restart, failover, disk full): nothing is wrong with the request; ask again after retryAfterSeconds. */
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
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
  SERVICE_UNAVAILABLE: 503,
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
export const forbidden = (message: string, reason?: string) => new PlazaError(ErrorCode.FORBIDDEN, message, undefined, reason);
export const conflict = (message: string, reason?: string) => new PlazaError(ErrorCode.CONFLICT, message, undefined, reason);
export const unauthenticated = (message = 'Sign in to do this') => new PlazaError(ErrorCode.UNAUTHENTICATED, message);

/**
 * What a request that failed because the database could not serve it answers (HTTP 503 with Retry-After):
 * it may or may not have taken effect if the database went away during its commit, so a client retries
 * with that in mind.
 */
export function serviceUnavailable(): PlazaError {
  const error = new PlazaError(
    ErrorCode.SERVICE_UNAVAILABLE,
    'The service is unavailable for a moment (its database cannot be reached); try again shortly',
    undefined,
    'DATABASE_UNAVAILABLE',
  );
  error.extensions.retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS;
  return error;
}

/** Whether a GraphQL error (or what it wraps) is the database being unavailable: such a response is sent as HTTP 503. */
export function isUnavailableError(error: unknown): boolean {
  if (error instanceof GraphQLError && error.extensions?.code === ErrorCode.SERVICE_UNAVAILABLE) return true;
  return isDatabaseUnavailable(error instanceof GraphQLError ? (error.originalError ?? error) : error);
}

/** The first failing field of a class-validator result, as a dotted path below the input object. */
function firstFailure(errors: ValidationError[], prefix = ''): { field: string; message: string } | undefined {
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const message = error.constraints ? Object.values(error.constraints)[0] : undefined;
    // A rule over a list may name the item that is wrong ("screenshotUrls[2] must ..."): that is the field.
    const item = message?.startsWith(`${error.property}[`) ? /^[^\s[]+\[\d+\]/.exec(message)?.[0] : undefined;
    if (message) return { field: item ? (prefix ? `${prefix}.${item}` : item) : field, message };
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

/**
 * Codes graphql-js, Apollo Server and the graphql-ws prelude give to a request the caller got wrong
 * (its document, operation name or variables); all of them answer the contract's BAD_USER_INPUT.
 */
const CLIENT_DOCUMENT_CODES = new Set([
  'BAD_USER_INPUT',
  'GRAPHQL_VALIDATION_FAILED',
  'GRAPHQL_PARSE_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);
/** Apollo's code for an automatic persisted query hash it does not know; APQ clients expect it verbatim. */
export const PERSISTED_QUERY_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND';

/**
 * Apollo refuses some requests (a persisted query hash that does not match its query, say) with a 4xx
 * status and no code, which its formatting then fills in as INTERNAL_SERVER_ERROR.
 */
function isUncodedClientError(error: unknown): boolean {
  // graphql-jit's errors (compiled operations) are GraphQLErrors with no extensions at all when the original had none.
  if (!(error instanceof GraphQLError) || error.extensions?.code !== undefined) return false;
  const status = (error.extensions?.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * A client's mistake is worth a line for whoever debugs that client, not an alarm: info level, no
 * stack, and no message (a variable's value, which could be a secret, is quoted in it).
 */
function logClientError(log: UnexpectedErrorLog, given: unknown, answered: Record<string, unknown> = {}): void {
  log?.info({ ...answered, clientError: given ?? 'BAD_REQUEST' }, 'client error in a GraphQL operation');
}

/** Where formatError reports an unexpected error: a logger (the request's, so the line carries its id), or nowhere. */
export type UnexpectedErrorLog = Logger | null;

/**
 * The single place where errors become what clients see: contract codes, the offending field for
 * bad input, and nothing internal. Unexpected errors are masked and logged with their stack to `log`
 * (null: the caller logs them itself, as the HTTP server does with the request's own logger); a
 * client's malformed request is logged there at info, as what it is.
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
  if (code === PERSISTED_QUERY_NOT_FOUND) {
    // Apollo's APQ protocol: clients that sent only a hash retry with the full query on exactly this code and message.
    logClientError(log, code, { code });
    return { message: formatted.message, extensions: { code } };
  }
  if (CLIENT_DOCUMENT_CODES.has(code as string) || isUncodedClientError(error)) {
    // Malformed documents and variables are the caller's input too; keep the message graphql-js wrote.
    const given = formatted.extensions?.field;
    const field = typeof given === 'string' ? given : fieldFromCoercionMessage(formatted.message);
    // Plaza's own limits (depth, aliases, cost) say which one with a reason.
    const reason = formatted.extensions?.reason;
    const extensions = { code: ErrorCode.BAD_USER_INPUT, ...(field ? { field } : {}), ...(typeof reason === 'string' ? { reason } : {}) };
    logClientError(log, code, extensions);
    return { message: formatted.message, locations: formatted.locations, extensions };
  }
  if (typeof code === 'string' && code in ErrorCode && code !== ErrorCode.INTERNAL_SERVER_ERROR) {
    // Errors raised before execution (a bad credential, a rate limit, a cost limit) arrive as plain
    // GraphQLErrors with a contract code; their details (reason, retryAfterSeconds) stay, transport ones go.
    const { http: _http, stacktrace: _stacktrace, ...details } = formatted.extensions ?? {};
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { ...details, code } };
  }
  if (isDatabaseUnavailable(original)) {
    // Not a bug and not worth a stack per request: the same line repeats until the database is back.
    log?.warn({ database: unavailableReason(original), path: formatted.path }, 'database unavailable: answered SERVICE_UNAVAILABLE');
    const unavailable = serviceUnavailable();
    return { message: unavailable.message, path: formatted.path, extensions: { ...unavailable.extensions } };
  }
  log?.error({ err: original, path: formatted.path }, 'unexpected error in a GraphQL operation');
  return { message: 'Something went wrong on our side; it has been logged.', path: formatted.path, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
}
