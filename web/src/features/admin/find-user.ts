import { useApolloClient } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useCallback } from 'react';
import { UserByEmailQuery } from './admin-operations';

export type AdminUser = NonNullable<ResultOf<typeof UserByEmailQuery>['userByEmail']>;

/** Looks an account up by the e-mail it signs in with: null when none does. Always asks the server, so a balance or a role is never stale. */
export function useFindUser(): (email: string) => Promise<AdminUser | null> {
  const client = useApolloClient();
  return useCallback(
    async (email: string) => (await client.query({ query: UserByEmailQuery, variables: { email: email.trim() }, fetchPolicy: 'network-only' })).data?.userByEmail ?? null,
    [client],
  );
}
