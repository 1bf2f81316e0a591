import { graphql } from '../../gql';

export const ApiTokensQuery = graphql(`
  query MyApiTokens {
    myApiTokens {
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
