import { graphql } from '../../gql';

export const RevealClientSecretMutation = graphql(`
  mutation RevealClientSecret($appId: ID!) {
    revealClientSecret(appId: $appId) {
      appId
      value
      createdAt
    }
  }
`);

export const RotateClientSecretMutation = graphql(`
  mutation RotateClientSecret($appId: ID!) {
    rotateClientSecret(appId: $appId) {
      appId
      value
      createdAt
    }
  }
`);
