import { CombinedGraphQLErrors, ServerError } from '@apollo/client';
import type { GraphQLFormattedError } from 'graphql';

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

/** Why launchApp failed, in words for the person who wanted to open the app. */
export function describeLaunchProblem(error: unknown): LaunchProblem {
  const graphQLError = firstGraphQLError(error);
  switch (graphQLError?.extensions?.code) {
    case 'UNAUTHENTICATED':
      return { message: 'Sign in to Plaza to open apps.', needsSignIn: true };
    case 'NOT_FOUND':
      return { message: 'This app does not exist, or is not in the store.', needsSignIn: false };
    case 'FORBIDDEN':
      return { message: graphQLError.message, needsSignIn: false };
  }
  const detail = graphQLError?.message ?? (error instanceof Error ? error.message : String(error));
  return { message: `Plaza could not open the app: ${detail}`, needsSignIn: false };
}
