import { graphql } from '../../gql';

export const WebhookEndpointFields = graphql(`
  fragment WebhookEndpointFields on WebhookEndpoint {
    id
    appId
    url
    description
    events
    state
    rateLimitPerSecond
    createdAt
  }
`);

export const AppWebhookEndpointsQuery = graphql(`
  query AppWebhookEndpoints($appId: ID!) {
    app(id: $appId) {
      id
      webhookEndpoints {
        ...WebhookEndpointFields
      }
    }
  }
`);

/**
 * One endpoint's last 24 hours as the log has them (the stats are per app): at most a page of 100, which is
 * plenty for a glance; more is said as "100+".
 */
export const EndpointRecentDeliveriesQuery = graphql(`
  query EndpointRecentDeliveries($filter: WebhookDeliveryFilter!) {
    webhookDeliveries(filter: $filter, first: 100) {
      edges {
        node {
          id
          status
        }
      }
      pageInfo {
        hasNextPage
      }
    }
  }
`);

/** What a delete gives up: the endpoint's deliveries not yet settled (PENDING and RETRYING; held ones are FAILED already). */
export const EndpointOpenDeliveriesQuery = graphql(`
  query EndpointOpenDeliveries($pending: WebhookDeliveryFilter!, $retrying: WebhookDeliveryFilter!) {
    pending: webhookDeliveries(filter: $pending, first: 100) {
      edges {
        node {
          id
        }
      }
      pageInfo {
        hasNextPage
      }
    }
    retrying: webhookDeliveries(filter: $retrying, first: 100) {
      edges {
        node {
          id
        }
      }
      pageInfo {
        hasNextPage
      }
    }
  }
`);

export const CreateWebhookEndpointMutation = graphql(`
  mutation CreateWebhookEndpoint($appId: ID!, $input: WebhookEndpointInput!) {
    createWebhookEndpoint(appId: $appId, input: $input) {
      ...WebhookEndpointFields
    }
  }
`);

export const UpdateWebhookEndpointMutation = graphql(`
  mutation UpdateWebhookEndpoint($id: ID!, $input: WebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) {
      ...WebhookEndpointFields
    }
  }
`);

export const DeleteWebhookEndpointMutation = graphql(`
  mutation DeleteWebhookEndpoint($id: ID!) {
    deleteWebhookEndpoint(id: $id)
  }
`);

export const PauseWebhookEndpointMutation = graphql(`
  mutation PauseWebhookEndpoint($id: ID!) {
    pauseWebhookEndpoint(id: $id) {
      ...WebhookEndpointFields
    }
  }
`);

export const ResumeWebhookEndpointMutation = graphql(`
  mutation ResumeWebhookEndpoint($id: ID!) {
    resumeWebhookEndpoint(id: $id) {
      ...WebhookEndpointFields
    }
  }
`);
