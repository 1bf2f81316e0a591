import { CombinedGraphQLErrors } from '@apollo/client/errors';

export interface ServerProblem {
  message: string;
  field?: string;
  reason?: string;
  code?: string;
}

/** The first GraphQL error with the extensions the server documents, or the transport failure as is. */
export function serverProblem(error: unknown): ServerProblem {
  const first = CombinedGraphQLErrors.is(error) ? error.errors[0] : undefined;
  if (first) {
    const extensions = (first.extensions ?? {}) as { field?: unknown; reason?: unknown; code?: unknown };
    return {
      message: first.message,
      field: typeof extensions.field === 'string' ? extensions.field : undefined,
      reason: typeof extensions.reason === 'string' ? extensions.reason : undefined,
      code: typeof extensions.code === 'string' ? extensions.code : undefined,
    };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
