import type { WebhookEndpointState } from '../../gql/graphql';

/** An endpoint as "Recover failed since…" needs it: whether a recovery without a choice goes to it, and its run of failures. */
export interface EndpointFailure {
  id: string;
  state: WebhookEndpointState;
  health?: { failingSince?: string | null } | null;
}

/** A datetime-local field's value (local time, to the minute) for `instant`. */
export function localInputValue(instant: Date): string {
  const local = new Date(instant.getTime() - instant.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/**
 * Each endpoint's latest known first failure, kept once its run ends: a Resume or an Enable, or the first
 * success after a fix, clears failingSince on the server, yet that is exactly when a person recovers what
 * failed before it. Returns `known` itself when nothing new was learnt (no re-render).
 */
export function rememberFailures(known: ReadonlyMap<string, string>, endpoints: readonly EndpointFailure[]): ReadonlyMap<string, string> {
  const fresh = endpoints.filter((endpoint) => endpoint.health?.failingSince && known.get(endpoint.id) !== endpoint.health.failingSince);
  if (fresh.length === 0) return known;
  const next = new Map(known);
  for (const endpoint of fresh) next.set(endpoint.id, endpoint.health!.failingSince!);
  return next;
}

/**
 * When the failures a recovery would send began: the chosen endpoint's first failure, or with none chosen
 * ('') the earliest of the enabled endpoints (those a recovery without a choice goes to). Null when none of
 * them is known to have failed.
 */
export function firstFailure(endpoints: readonly EndpointFailure[], known: ReadonlyMap<string, string>, endpointId: string): Date | null {
  const chosen = endpoints.filter((endpoint) => (endpointId === '' ? endpoint.state === 'ENABLED' : endpoint.id === endpointId));
  const times = chosen.flatMap((endpoint) => {
    const since = endpoint.health?.failingSince ?? known.get(endpoint.id);
    return since ? [Date.parse(since)] : [];
  });
  return times.length === 0 ? null : new Date(Math.min(...times));
}
