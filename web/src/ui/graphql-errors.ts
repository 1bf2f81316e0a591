import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { useLocale, useT } from '../i18n/i18n';
import type { MessageKey } from '../i18n/strings';
import { isMessageKey } from '../i18n/words';

export interface ServerProblem {
  message: string;
  field?: string;
  reason?: string;
  code?: string;
  /** RATE_LIMITED: when to try again. */
  retryAfterSeconds?: number;
}

/** The problem from the `extensions` of a server error (GraphQL, or REST in GraphQL's shape). */
export function problemOf(message: string, extensions: Record<string, unknown> | undefined): ServerProblem {
  const { field, reason, code, retryAfterSeconds } = extensions ?? {};
  return {
    message,
    field: typeof field === 'string' ? field : undefined,
    reason: typeof reason === 'string' ? reason : undefined,
    code: typeof code === 'string' ? code : undefined,
    retryAfterSeconds: typeof retryAfterSeconds === 'number' ? retryAfterSeconds : undefined,
  };
}

/** The first GraphQL error with the extensions the server documents, or the transport failure as is. */
export function serverProblem(error: unknown): ServerProblem {
  const first = CombinedGraphQLErrors.is(error) ? error.errors[0] : undefined;
  if (first) return problemOf(first.message, first.extensions);
  return { message: error instanceof Error ? error.message : String(error) };
}

/**
 * A server's refusal in the reader's language (a Vietnamese reader got English refusals): the server writes English, often
 * with specifics (limits, ids), so an English reader gets it as written; other readers get the words for
 * (code, reason), else (code, field), else the code, where this build has them (`serverError.*`), and
 * the server's text otherwise.
 */
export function useProblemText(): (problem: ServerProblem) => string {
  const t = useT();
  const locale = useLocale();
  return (problem) => {
    if (locale === 'en' || !problem.code) return problem.message;
    const field = problem.field?.replace(/^input\./, '');
    const keys = [problem.reason && `serverError.${problem.code}.${problem.reason}`, field && `serverError.${problem.code}.${field}`, `serverError.${problem.code}`];
    const key = keys.find((candidate): candidate is MessageKey => !!candidate && isMessageKey(candidate));
    if (!key || (key === 'serverError.RATE_LIMITED' && problem.retryAfterSeconds === undefined)) return problem.message;
    return t(key, { seconds: problem.retryAfterSeconds ?? 0 });
  };
}
