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
