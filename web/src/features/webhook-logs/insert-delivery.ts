import type { ApolloCache } from '@apollo/client';
import { useSubscription } from '@apollo/client/react';
import { useFragment as readFragment, type FragmentType } from '../../gql';
import type { WebhookDeliveriesQueryVariables, WebhookDeliveryFieldsFragment } from '../../gql/graphql';
import { refreshWebhookHealth } from './health-refresh';
import { WebhookDeliveriesQuery, WebhookDeliveryFields, WebhookDeliveryUpdatedSubscription } from './webhook-deliveries';

/**
 * Puts a delivery the list does not hold yet in its place, newest first (a new one lands on top).
 * One already listed needs nothing: the cache is normalised by id, so its row already shows the new
 * fields. One older than every loaded row waits for "Load more" when there are more pages.
 */
export function insertDelivery(cache: ApolloCache, variables: WebhookDeliveriesQueryVariables, delivery: FragmentType<typeof WebhookDeliveryFields>): void {
  const { id, createdAt } = readFragment(WebhookDeliveryFields, delivery);
  cache.updateQuery({ query: WebhookDeliveriesQuery, variables }, (current) => {
    if (!current) return current;
    const { edges, pageInfo } = current.webhookDeliveries;
    const listed = edges.map((edge) => readFragment(WebhookDeliveryFields, edge.node));
    if (listed.some((node) => node.id === id)) return current;
    const created = Date.parse(createdAt);
    let position = listed.findIndex((node) => Date.parse(node.createdAt) < created);
    if (position === -1) {
      if (pageInfo.hasNextPage) return current;
      position = edges.length;
    }
    const edge = { __typename: 'WebhookDeliveryEdge' as const, cursor: '', node: { ...delivery, __typename: 'WebhookDelivery' as const } };
    return { webhookDeliveries: { ...current.webhookDeliveries, edges: [...edges.slice(0, position), edge, ...edges.slice(position)] } };
  });
}

/**
 * Writes a live update of a delivery into the cache, unless the cache already holds a newer state of
 * it, and says whether it did. Updates can arrive out of order (a quick retry sent by another worker
 * can report SUCCEEDED before the RETRYING it follows is published); `updatedAt` is the database's
 * commit time of the row, which only grows, so an older update never overwrites a newer one.
 */
export function writeDeliveryUpdate(cache: ApolloCache, delivery: FragmentType<typeof WebhookDeliveryFields>): boolean {
  const incoming = readFragment(WebhookDeliveryFields, delivery);
  const id = cache.identify({ __typename: 'WebhookDelivery', id: incoming.id });
  const held = cache.readFragment({ fragment: WebhookDeliveryFields, fragmentName: 'WebhookDeliveryFields', id });
  if (held && Date.parse(held.updatedAt) > Date.parse(incoming.updatedAt)) return false;
  cache.writeFragment({ fragment: WebhookDeliveryFields, fragmentName: 'WebhookDeliveryFields', id, data: incoming });
  return true;
}

/**
 * Live updates of one app's deliveries (or all of one's apps'), each written to the cache through
 * writeDeliveryUpdate and handed on only when it is news: every page that listens goes through here, so
 * none of them can write a late update over a newer one in the cache the others read. A delivery that
 * has ended (a retry, a redelivery or a recovery answered) refreshes the health on screen.
 */
export function useDeliveryUpdates(
  appId: string | undefined,
  onNews: (delivery: WebhookDeliveryFieldsFragment, update: FragmentType<typeof WebhookDeliveryFields>, cache: ApolloCache) => void,
  { skip = false }: { skip?: boolean } = {},
): void {
  useSubscription(WebhookDeliveryUpdatedSubscription, {
    variables: appId ? { appId } : {},
    skip,
    // Written by hand below rather than by Apollo, so an older update never lands.
    fetchPolicy: 'no-cache',
    onData: ({ client, data }) => {
      const update = data.data?.webhookDeliveryUpdated;
      if (!update || !writeDeliveryUpdate(client.cache, update)) return;
      const delivery = readFragment(WebhookDeliveryFields, update);
      if (delivery.status === 'SUCCEEDED' || delivery.status === 'FAILED') refreshWebhookHealth(client);
      onNews(delivery, update, client.cache);
    },
  });
}
