import { graphql } from '../../gql';

export const FAILED_PAGE_SIZE = 25;
/** Enough to count the retrying deliveries on one request; beyond it the count reads "100+". */
export const RETRYING_COUNT_LIMIT = 100;

export const DeliveryFailuresQuery = graphql(`
  query DeliveryFailures($first: Int!, $retryingLimit: Int!) {
    failed: webhookDeliveries(filter: { status: FAILED }, first: $first) {
      edges {
        node {
          id
          appId
          event
          eventName
          purchaseId
          attemptCount
          createdAt
        }
      }
      pageInfo {
        hasNextPage
      }
    }
    retrying: webhookDeliveries(filter: { status: RETRYING }, first: $retryingLimit) {
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

export const RefundPurchaseMutation = graphql(`
  mutation RefundPurchase($purchaseId: String!, $reason: String) {
    refundPurchase(purchaseId: $purchaseId, reason: $reason) {
      purchaseId
      appId
      userId
      pricePoints
      amountVnd
      status
      refundedAt
      refundReason
    }
  }
`);

export const CreditPointsMutation = graphql(`
  mutation CreditPoints($userId: ID!, $points: Int!, $reason: String!) {
    creditPoints(userId: $userId, points: $points, reason: $reason) {
      userId
      points: pointsExact
    }
  }
`);

/** Who an admin is about to credit or change the roles of; `configuredRoles` cannot be revoked from the UI. */
export const UserByEmailQuery = graphql(`
  query UserByEmail($email: String!) {
    userByEmail(email: $email) {
      id
      email
      roles
      configuredRoles
      points: pointsExact
    }
  }
`);

export const GrantRoleMutation = graphql(`
  mutation GrantRole($userId: ID!, $role: String!) {
    grantRole(userId: $userId, role: $role) {
      id
      email
      roles
      configuredRoles
      points: pointsExact
    }
  }
`);

export const RevokeRoleMutation = graphql(`
  mutation RevokeRole($userId: ID!, $role: String!) {
    revokeRole(userId: $userId, role: $role) {
      id
      email
      roles
      configuredRoles
      points: pointsExact
    }
  }
`);

/** How many of a buyer's purchases the admin view lists; a buyer with more is told to ask for the newest. */
export const BUYER_PURCHASES_LIMIT = 50;

export const PurchasesByBuyerEmailQuery = graphql(`
  query PurchasesByBuyerEmail($email: String!, $first: Int!) {
    purchasesByBuyerEmail(email: $email, first: $first) {
      edges {
        node {
          purchaseId
          appId
          app {
            id
            name
          }
          kind
          pricePoints
          status
          createdAt
        }
      }
      pageInfo {
        hasNextPage
      }
    }
  }
`);
