import { graphql } from '../../gql';

export const AppWebhookStateQuery = graphql(`
  query AppWebhookState($appId: ID!) {
    app(id: $appId) {
      id
      webhookState
    }
  }
`);

export const EnableWebhookMutation = graphql(`
  mutation EnableWebhook($appId: ID!) {
    enableWebhook(appId: $appId) {
      id
      webhookState
    }
  }
`);

export const RecoverWebhookDeliveriesMutation = graphql(`
  mutation RecoverWebhookDeliveries($appId: ID!, $since: DateTime!, $endpointId: ID) {
    recoverWebhookDeliveries(appId: $appId, since: $since, endpointId: $endpointId) {
      appId
      since
      deliveriesQueued
      deliveriesSkipped
    }
  }
`);

/** When each endpoint's current run of failures began (null while it succeeds): "Recover failed since…" the first failure. */
export const AppEndpointFailuresQuery = graphql(`
  query AppEndpointFailures($appId: ID!) {
    app(id: $appId) {
      id
      webhookEndpoints {
        id
        state
        health {
          failingSince
        }
      }
    }
  }
`);
