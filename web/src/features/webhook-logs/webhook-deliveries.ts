import { graphql } from '../../gql';

// Every operation that returns deliveries selects WebhookDeliveryFields, so each result writes the same
// shape into the normalised WebhookDelivery entry and the list re-renders from it without a refetch.
export const WebhookDeliveryFields = graphql(`
  fragment WebhookDeliveryFields on WebhookDelivery {
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
    endpointId
    endpoint {
      id
      url
      state
    }
    lastAttempt {
      number
      trigger
      statusCode
      error
      durationMs
      outcome
    }
  }
`);

export const WebhookDeliveriesQuery = graphql(`
  query WebhookDeliveries($filter: WebhookDeliveryFilter, $first: Int, $after: String) {
    webhookDeliveries(filter: $filter, first: $first, after: $after) {
      edges {
        cursor
        node {
          ...WebhookDeliveryFields
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
      iconUrl
    }
  }
`);

export const WebhookDeliveryUpdatedSubscription = graphql(`
  subscription WebhookDeliveryUpdated($appId: ID) {
    webhookDeliveryUpdated(appId: $appId) {
      ...WebhookDeliveryFields
    }
  }
`);

export const SendTestWebhookMutation = graphql(`
  mutation SendTestWebhook($appId: ID!, $endpointId: ID) {
    sendTestWebhook(appId: $appId, endpointId: $endpointId) {
      ...WebhookDeliveryFields
    }
  }
`);

export const WebhookDeliveryQuery = graphql(`
  query WebhookDelivery($id: ID!) {
    webhookDelivery(id: $id) {
      ...WebhookDeliveryFields
      heldReason
      payload
      payloadKept
      attempts {
        ...DeliveryAttemptFields
      }
    }
  }
`);

export const RedeliverWebhookMutation = graphql(`
  mutation RedeliverWebhook($deliveryId: ID!) {
    redeliverWebhook(deliveryId: $deliveryId) {
      ...WebhookDeliveryFields
      attempts {
        ...DeliveryAttemptFields
      }
    }
  }
`);
