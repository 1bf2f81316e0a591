import { graphql } from '../../gql';

export const NotificationFields = graphql(`
  fragment NotificationFields on Notification {
    id
    kind
    message
    appId
    appName
    reasons
    note
    since
    lastError
    failedDeliveries
    points
    createdAt
    readAt
  }
`);

export const NotificationsQuery = graphql(`
  query Notifications {
    notifications(first: 20) {
      edges {
        node {
          ...NotificationFields
        }
      }
    }
  }
`);

export const NotificationAddedSubscription = graphql(`
  subscription NotificationAdded {
    notificationAdded {
      ...NotificationFields
    }
  }
`);

export const MarkNotificationReadMutation = graphql(`
  mutation MarkNotificationRead($id: ID!) {
    markNotificationRead(id: $id) {
      ...NotificationFields
    }
  }
`);
