import { graphql } from '../../gql';

export const REVIEW_PAGE_SIZE = 25;

export const ReviewQueueQuery = graphql(`
  query ReviewQueue($first: Int!, $after: String) {
    me {
      id
    }
    reviewQueue(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          name
          shortDescription
          category
          pricing
          pricePoints
          appUrl
          ownerId
          submittedAt
          reviewDueAt
          reviewOverdue
          developer {
            ...ReviewDeveloper
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const ReviewAppQuery = graphql(`
  query ReviewApp($appId: ID!) {
    me {
      id
    }
    app(id: $appId) {
      id
      ownerId
      name
      shortDescription
      iconUrl
      appUrl
      category
      pricing
      pricePoints
      webhookUrl
      longDescription
      screenshotUrls
      supportUrl
      privacyPolicyUrl
      status
      revision
      submittedAt
      reviewDueAt
      reviewOverdue
      reviewDecisions {
        ...ReviewHistoryDecision
      }
      developer {
        ...ReviewDeveloper
      }
      preChecks {
        status
        results {
          check
          outcome
          detail
        }
      }
    }
  }
`);

export const DecideReviewMutation = graphql(`
  mutation DecideReview($input: ReviewDecisionInput!) {
    decideReview(input: $input) {
      id
      appId
      outcome
      reasons
      note
      decidedAt
      appRevision
    }
  }
`);
