import { graphql } from '../../gql';

export const DeveloperAppQuery = graphql(`
  query DeveloperApp($appId: ID!) {
    app(id: $appId) {
      id
      name
      shortDescription
      iconUrl
      appUrl
      category
      pricing
      pricePoints
      webhookUrl
      webhookEvents
      longDescription
      screenshotUrls
      supportUrl
      privacyPolicyUrl
      status
      submittedAt
      reviewDueAt
      reviewOverdue
      reviewDecisions {
        ...ReviewHistoryDecision
      }
      preChecks {
        status
        results {
          check
          outcome
          detail
        }
      }
      earnings {
        grossSalesVnd
        developerShareVnd
        refundedVnd
        netDeveloperShareVnd
        salesCount
        refundsCount
      }
    }
  }
`);

export const UpdateAppMutation = graphql(`
  mutation UpdateApp($id: ID!, $input: UpdateAppInput!) {
    updateApp(id: $id, input: $input) {
      id
      status
      reviewDueAt
    }
  }
`);
