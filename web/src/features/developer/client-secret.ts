import { graphql } from '../../gql';

/** The secret and, while a rotation's overlap runs, the one it replaced and when that stops signing. */
export const ClientSecretFields = graphql(`
  fragment ClientSecretFields on ClientSecret {
    appId
    value
    createdAt
    previousValue
    previousValidUntil
  }
`);

export const RevealClientSecretMutation = graphql(`
  mutation RevealClientSecret($appId: ID!) {
    revealClientSecret(appId: $appId) {
      ...ClientSecretFields
    }
  }
`);

export const RotateClientSecretMutation = graphql(`
  mutation RotateClientSecret($appId: ID!, $overlapHours: Int) {
    rotateClientSecret(appId: $appId, overlapHours: $overlapHours) {
      ...ClientSecretFields
    }
  }
`);

export const FinishClientSecretRotationMutation = graphql(`
  mutation FinishClientSecretRotation($appId: ID!) {
    finishClientSecretRotation(appId: $appId) {
      ...ClientSecretFields
    }
  }
`);
