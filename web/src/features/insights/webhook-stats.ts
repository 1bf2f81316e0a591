import type { WebhookDeliveryStatsQuery } from '../../gql/graphql';

export type WebhookDeliveryStats = WebhookDeliveryStatsQuery['webhookDeliveryStats'];

export interface DeliveryTotals {
  succeeded: number;
  failed: number;
  total: number;
}

export function deliveryTotals(buckets: readonly { succeeded: number; failed: number }[]): DeliveryTotals {
  let succeeded = 0;
  let failed = 0;
  for (const bucket of buckets) {
    succeeded += bucket.succeeded;
    failed += bucket.failed;
  }
  return { succeeded, failed, total: succeeded + failed };
}

/**
 * Failing: the webhook is enabled, but the latest hour in which anything was attempted saw failures and no
 * success. The API's state is only enabled or disabled (disabling comes days later); this is the warning
 * in between, while the receiver is down now.
 */
export function webhookFailing(stats: WebhookDeliveryStats | undefined): boolean {
  if (stats?.webhookState !== 'ENABLED') return false;
  const latest = [...stats.buckets].reverse().find((bucket) => bucket.succeeded + bucket.failed > 0);
  return latest !== undefined && latest.failed > 0 && latest.succeeded === 0;
}
