import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/platform/database-unavailable.js';

// A failover's end as a purchase saw it: its transaction's connection died, and the next statement went through
// the transaction's manager. That is the service being unavailable (503, Retry-After), not an internal error.
describe('a statement on a transaction whose connection died', () => {
  it('is the database being unavailable, whether it went through the runner or the manager', () => {
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false);
  });
});

// The embedded PostgreSQL is reached through a Unix socket; while it is down the socket file is gone, and the
// connect fails with ENOENT rather than ECONNREFUSED. Before, such a failure was an internal error, and a
// worker's result write was given up at once instead of retried.
describe('a connect to a Unix socket with no PostgreSQL behind it', () => {
  it('is the database being unavailable; a missing file read is not', async () => {
    const emptyDirectory = mkdtempSync(path.join(tmpdir(), 'plaza-no-postgres-'));
    const client = new pg.Client({ host: emptyDirectory, database: 'plaza', user: 'plaza' });
    const connectError = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(connectError).toMatchObject({ code: 'ENOENT', syscall: 'connect' });
    expect(isDatabaseUnavailable(connectError)).toBe(true);

    const readError = await readFile(path.join(emptyDirectory, 'missing.json')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(readError).toMatchObject({ code: 'ENOENT' });
    expect(isDatabaseUnavailable(readError)).toBe(false);
  });
});
