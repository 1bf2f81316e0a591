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

/** An endpoint's health at a glance (WebhookEndpoint.health), as the server keeps it: no log pages counted here. */
export const WebhookEndpointHealthFields = graphql(`
  fragment WebhookEndpointHealthFields on WebhookEndpointHealth {
    failingSince
    lastFailureAt
    lastError
    failedDeliveries
    attemptsSucceeded
    attemptsFailed
    successRate
    openDeliveries
    heldDeliveries
    lastAttemptAt
  }
`);

/** The app's endpoints with each one's health: one request for the Endpoints section. */
export const AppWebhookEndpointsHealthQuery = graphql(`
  query AppWebhookEndpointsHealth($appId: ID!) {
    app(id: $appId) {
      id
      webhookEndpoints {
        ...WebhookEndpointFields
        health {
          ...WebhookEndpointHealthFields
        }
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
