import { describe, expect, it } from 'vitest';
import { firstFailure, rememberFailures, type EndpointFailure } from './recover-since';

const endpoint = (id: string, state: EndpointFailure['state'], failingSince: string | null): EndpointFailure => ({ id, state, health: { failingSince } });

describe('Recover failed since the first failure', () => {
  it('takes the chosen endpoint’s first failure, or the earliest of the enabled ones when none is chosen', () => {
    const endpoints = [
      endpoint('ep_a', 'ENABLED', '2030-01-01T10:05:00.000Z'),
      endpoint('ep_b', 'ENABLED', '2030-01-01T10:01:00.000Z'),
      // A recovery without a choice does not go to a paused endpoint: its earlier failure is not the start.
      endpoint('ep_c', 'PAUSED', '2030-01-01T09:00:00.000Z'),
      endpoint('ep_d', 'ENABLED', null),
    ];
    expect(firstFailure(endpoints, new Map(), '')?.toISOString()).toBe('2030-01-01T10:01:00.000Z');
    expect(firstFailure(endpoints, new Map(), 'ep_a')?.toISOString()).toBe('2030-01-01T10:05:00.000Z');
    expect(firstFailure(endpoints, new Map(), 'ep_c')?.toISOString()).toBe('2030-01-01T09:00:00.000Z');
    expect(firstFailure(endpoints, new Map(), 'ep_d')).toBeNull();
  });

  it('remembers a first failure once the run has ended (a success or a Resume clears it on the server)', () => {
    const failing = [endpoint('ep_a', 'ENABLED', '2030-01-01T10:05:00.000Z')];
    const known = rememberFailures(new Map(), failing);
    expect(rememberFailures(known, failing)).toBe(known);
    const recovered = [endpoint('ep_a', 'ENABLED', null)];
    expect(rememberFailures(known, recovered)).toBe(known);
    expect(firstFailure(recovered, known, '')?.toISOString()).toBe('2030-01-01T10:05:00.000Z');
    // A later run is the one a person means.
    const again = rememberFailures(known, [endpoint('ep_a', 'ENABLED', '2030-01-01T11:00:00.000Z')]);
    expect(firstFailure(recovered, again, 'ep_a')?.toISOString()).toBe('2030-01-01T11:00:00.000Z');
  });
});
