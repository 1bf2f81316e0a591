import { CombinedGraphQLErrors, ServerError } from '@apollo/client';
import type { GraphQLFormattedError } from 'graphql';
import type { Translate } from '../../i18n/i18n';

export interface LaunchProblem {
  message: string;
  /** Signing in (on the home page) is what fixes it. */
  needsSignIn: boolean;
}

function firstGraphQLError(error: unknown): GraphQLFormattedError | undefined {
  if (CombinedGraphQLErrors.is(error)) return error.errors[0];
  // Plaza answers errors with their HTTP status; without the GraphQL response media type Apollo reports those as ServerError.
  if (ServerError.is(error)) {
    try {
      return (JSON.parse(error.bodyText) as { errors?: GraphQLFormattedError[] }).errors?.[0];
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Why launchApp failed, in words (and the language) of the person who wanted to open the app. */
export function describeLaunchProblem(error: unknown, t: Translate): LaunchProblem {
  const graphQLError = firstGraphQLError(error);
  switch (graphQLError?.extensions?.code) {
    case 'UNAUTHENTICATED':
      return { message: t('launcher.signInToOpen'), needsSignIn: true };
    case 'NOT_FOUND':
      return { message: t('launcher.notFound'), needsSignIn: false };
    case 'FORBIDDEN':
      return { message: graphQLError.message, needsSignIn: false };
  }
  const detail = graphQLError?.message ?? (error instanceof Error ? error.message : String(error));
  return { message: t('launcher.couldNotOpen', { detail }), needsSignIn: false };
}
