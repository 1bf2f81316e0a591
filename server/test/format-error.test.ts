import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { formatError, type UnexpectedErrorLog } from '../src/platform/errors.js';

/**
 * A compiled operation's failure (graphql-jit) arrives as a GraphQLError built by graphql-jit's own
 * constructor: message, path and a non-enumerable originalError, and no extensions at all when the
 * original had none. Seen in CI: a secret that no longer decrypts was logged as "Cannot read
 * properties of undefined (reading 'code')" instead of what went wrong.
 */
function compiledOperationError(original: Error, path: string[]): GraphQLError {
  return Object.create(GraphQLError.prototype, {
    message: { value: original.message, enumerable: true },
    path: { value: path, enumerable: true },
    originalError: { value: original },
    extensions: { value: undefined },
  }) as GraphQLError;
}

describe('an unexpected error of a compiled operation', () => {
  it('is masked for the client and logged as itself, with its path', () => {
    const original = new Error('Unsupported state or unable to authenticate data');
    const error = compiledOperationError(original, ['revealClientSecret']);
    const logged: unknown[][] = [];
    const log = { error: (...args: unknown[]) => void logged.push(args) } as unknown as UnexpectedErrorLog;

    const answer = formatError({ message: error.message, path: error.path }, error, log);

    expect(answer).toEqual({ message: 'Something went wrong on our side; it has been logged.', path: ['revealClientSecret'], extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(logged).toEqual([[{ err: original, path: ['revealClientSecret'] }, 'unexpected error in a GraphQL operation']]);
  });
});
