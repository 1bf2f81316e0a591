import { graphql } from '../../gql';

// Fields are listed in each operation (no fragments) so that every result writes the same shape into
// the normalised WebhookDelivery entry and the list re-renders from it without a refetch.
export const WebhookDeliveriesQuery = graphql(`
  query WebhookDeliveries($filter: WebhookDeliveryFilter, $first: Int, $after: String) {
    webhookDeliveries(filter: $filter, first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          appId
          event
          eventName
          purchaseId
          status
          attemptCount
          nextAttemptAt
          createdAt
          updatedAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const WebhookLogAppsQuery = graphql(`
  query WebhookLogApps {
    myApps {
      id
      name
    }
  }
`);

export const WebhookDeliveryUpdatedSubscription = graphql(`
  subscription WebhookDeliveryUpdated($appId: ID) {
    webhookDeliveryUpdated(appId: $appId) {
      id
      appId
      event
      eventName
      purchaseId
      status
      attemptCount
      nextAttemptAt
      createdAt
      updatedAt
    }
  }
`);

export const SendTestWebhookMutation = graphql(`
  mutation SendTestWebhook($appId: ID!) {
    sendTestWebhook(appId: $appId) {
      id
      appId
      event
      eventName
      purchaseId
      status
      attemptCount
      nextAttemptAt
      createdAt
      updatedAt
    }
  }
`);

export const WebhookDeliveryQuery = graphql(`
  query WebhookDelivery($id: ID!) {
    webhookDelivery(id: $id) {
      id
      appId
      event
      eventName
      purchaseId
      payload
      status
      attemptCount
      nextAttemptAt
      createdAt
      updatedAt
      attempts {
        number
        trigger
        startedAt
        durationMs
        statusCode
        error
        responseBodyExcerpt
        url
        finished
        finishedAt
        outcome
        requestHeaders {
          name
          value
        }
      }
    }
  }
`);

export const RedeliverWebhookMutation = graphql(`
  mutation RedeliverWebhook($deliveryId: ID!) {
    redeliverWebhook(deliveryId: $deliveryId) {
      id
      status
      attemptCount
      nextAttemptAt
      updatedAt
      attempts {
        number
        trigger
        startedAt
        durationMs
        statusCode
        error
        responseBodyExcerpt
        url
        finished
        finishedAt
        outcome
        requestHeaders {
          name
          value
        }
      }
    }
  }
`);
