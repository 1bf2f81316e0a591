import { useT } from '../../i18n/i18n';
import { useProblemText } from '../../ui/graphql-errors';
import { AuthError } from './auth-api';

/** A sign-in or sign-out failure in the reader's language: words found here by key, the server's by its code and field. */
export function useAuthProblemText(): (err: unknown) => string {
  const t = useT();
  const problemText = useProblemText();
  return (err) => {
    if (!(err instanceof AuthError)) return err instanceof Error ? err.message : String(err);
    return err.words ? t(err.words.key, err.words.values) : problemText(err.problem);
  };
}
