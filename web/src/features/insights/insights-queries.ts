import { graphql } from '../../gql';

/** One app's webhook health (appId), or all of the viewer's apps together (no appId). */
export const WebhookDeliveryStatsQuery = graphql(`
  query WebhookDeliveryStats($appId: ID, $window: StatsWindow!) {
    webhookDeliveryStats(appId: $appId, window: $window) {
      window
      buckets {
        start
        succeeded
        failed
      }
      successRate
      latencyP50Ms
      latencyP95Ms
      webhookState
    }
  }
`);

export const DeveloperEarningsQuery = graphql(`
  query DeveloperEarnings($period: EarningsPeriod!, $appId: ID) {
    developerEarnings(period: $period, appId: $appId) {
      period
      totalNetEarningsVnd
      buckets {
        start
        installs
        purchases
        refunds
        netEarningsVnd
      }
    }
  }
`);

export const PlatformStatsQuery = graphql(`
  query PlatformStats {
    platformStats {
      failureRate
      deliveriesPerMinute {
        start
        succeeded
        failed
      }
      reviewQueue {
        appId
        appName
        submittedAt
        waitingHours
        overdue
      }
      appsFailingMost {
        appId
        appName
        failedAttempts
        attempts
        failureRate
      }
    }
  }
`);
