import type { ApolloClient } from '@apollo/client';

/** The queries that say how an app's webhook is doing: the banner's state, the chart's (and banner's) numbers, the endpoints' first failures (Recover's preset), My Apps' column. */
const HEALTH_QUERIES: ReadonlySet<string> = new Set(['WebhookDeliveryStats', 'AppWebhookState', 'AppEndpointFailures', 'MyApps']);
/** Deliveries ending together (a recovery sends a few at a time) make one refetch, not one each. */
const COALESCE_MS = 400;

const scheduled = new WeakSet<ApolloClient>();

/**
 * Refetches whatever health is on screen once a delivery has ended, so the banner, the chart and My Apps
 * agree with the log beside them (without it, after a recovery they still said "failing, 18 of
 * 18" and 0% next to "Sent again: 2 of 2 (2 succeeded)"). The numbers are rolled up with each attempt's
 * result, so they are current when its update arrives.
 */
export function refreshWebhookHealth(client: ApolloClient): void {
  if (scheduled.has(client)) return;
  scheduled.add(client);
  setTimeout(() => {
    scheduled.delete(client);
    // Each query that fails shows its own error, and the next change refreshes again.
    void client
      .refetchQueries({ include: 'active', onQueryUpdated: (query) => (query.queryName !== undefined && HEALTH_QUERIES.has(query.queryName) ? query.refetch() : false) })
      .catch(() => undefined);
  }, COALESCE_MS);
}
