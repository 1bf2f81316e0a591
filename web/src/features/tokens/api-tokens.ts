import { graphql } from '../../gql';

/** Tokens a page, newest first; revoked ones stay listed, so the list pages on ("Load more"). */
export const TOKENS_PAGE_SIZE = 50;

export const ApiTokensQuery = graphql(`
  query MyApiTokens($first: Int, $after: String) {
    myApiTokens(first: $first, after: $after) {
      edges {
        node {
          id
          name
          scopes
          tokenPrefix
          createdAt
          expiresAt
          lastUsedAt
          revokedAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const CreateApiTokenMutation = graphql(`
  mutation CreateApiToken($input: CreateApiTokenInput!) {
    createApiToken(input: $input) {
      id
      token
    }
  }
`);

export const RevokeApiTokenMutation = graphql(`
  mutation RevokeApiToken($id: ID!) {
    revokeApiToken(id: $id)
  }
`);

export const TOKEN_SCOPES = ['deliveries:read', 'deliveries:write', 'apps:read'] as const;
