/**
 * Whether an error means the database cannot serve right now (it restarts, fails over, is full or
 * refuses connections) rather than that the request or the code is wrong: such a request is answered
 * 503 SERVICE_UNAVAILABLE with Retry-After, never as an internal error, and the client may try again.
 */

/** Seconds a client is told to wait (Retry-After) before asking again while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * SQLSTATEs of a database that cannot serve now. Class 08: the connection failed. 57P01-57P03: the
 * server shuts down, crashed, or is starting (or being promoted). 53xxx: out of disk, memory or
 * connections. 25006: a write reached a read-only server (a standby not yet promoted, a failover's
 * endpoint still pointing at the old side).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53000', '53100', '53200', '53300', '25006']);
/** Node's socket errors on the way to the database. */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * A Unix socket's connect to a server that is not there (the embedded PostgreSQL's URL goes through one): the
 * socket file is gone while PostgreSQL is down. Only on connect: ENOENT from a file read is not the database.
 */
const isSocketFileMissing = (code: unknown, syscall: unknown) => code === 'ENOENT' && syscall === 'connect';
/** pg and pg-pool raise these as plain Errors, without a code: a connection that dropped, timed out or never came. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Query read timeout$/,
];

/**
 * TypeORM releases a query runner whose connection failed (its 'error' event), so a transaction's next
 * statement on it throws one of these (the first from the runner, the second from the transaction's manager,
 * whichever the statement goes through). Plaza's code never uses a runner it released, so here they mean the
 * connection died under the transaction.
 */
const CONNECTION_LOST_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/** The errors an error wraps: graphql's originalError, TypeORM's driverError, a standard cause. */
function* causes(err: unknown): Generator<unknown> {
  for (let depth = 0; err && typeof err === 'object' && depth < 6; depth++) {
    yield err;
    const e = err as { originalError?: unknown; driverError?: unknown; cause?: unknown };
    err = e.driverError ?? e.originalError ?? e.cause;
  }
}

/** Whether this one error (not what it wraps) says the database cannot serve. */
function saysUnavailable(e: unknown): boolean {
  const { code, message, name, syscall } = e as { code?: unknown; message?: unknown; name?: unknown; syscall?: unknown };
  if (typeof name === 'string' && CONNECTION_LOST_ERRORS.has(name)) return true;
  if (isSocketFileMissing(code, syscall)) return true;
  if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/** SQLSTATE 53100: PostgreSQL could not extend a file (or write its WAL) for want of disk space. */
const DISK_FULL = '53100';
/** How long a write refused for a full disk keeps /readyz saying so: reads still work then, so nothing else shows it. */
export const DISK_FULL_REMEMBERED_MS = 10_000;
let diskFullAt = -Infinity;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (!saysUnavailable(e)) continue;
    // Every refusal passes here on its way to a 503, so this is where a full disk is noticed for /readyz.
    if ((e as { code?: unknown }).code === DISK_FULL) diskFullAt = Date.now();
    return true;
  }
  return false;
}

/** Whether the database refused a write for a full disk within DISK_FULL_REMEMBERED_MS (readiness reports it). */
export function diskFullRecently(now = Date.now()): boolean {
  return now - diskFullAt < DISK_FULL_REMEMBERED_MS;
}

/** What the log says of it, without the stack: the same failure repeats for every request until the database is back. */
export function unavailableReason(err: unknown): { message?: string; code?: string } {
  for (const e of causes(err)) {
    if (!saysUnavailable(e)) continue;
    const { code, message } = e as { code?: unknown; message?: unknown };
    return { message: typeof message === 'string' ? message : undefined, code: typeof code === 'string' ? code : undefined };
  }
  return {};
}
