import { describe, expect, it } from 'vitest';
import type { Delivery } from '../src/commands/deliveries.js';
import { RecoveryOutcomes, type Attempt } from '../src/commands/recovery-outcomes.js';

const attempt = (number: number, trigger: string, outcome: string): Attempt => ({
  number,
  trigger,
  outcome,
  finished: outcome !== 'IN_FLIGHT',
  statusCode: outcome === 'SUCCEEDED' ? 200 : 500,
  error: outcome === 'FAILED' ? 'HTTP 500' : null,
  durationMs: 5,
  startedAt: '2026-11-23T10:00:00Z',
});
const delivery = (id: string, status: string, attempts: Attempt[]): Delivery => ({
  id,
  appId: 'app_1',
  endpointId: 'ep_1',
  eventName: 'app.purchased',
  status,
  attemptCount: attempts.length,
  purchaseId: 'APP-1-X',
  heldReason: null,
  createdAt: '2026-11-23T10:00:00Z',
  updatedAt: '2026-11-23T10:00:00Z',
  nextAttemptAt: null,
  payload: '{}',
  attempts,
});
const older = [attempt(1, 'SCHEDULED', 'FAILED'), attempt(2, 'SCHEDULED', 'FAILED'), attempt(3, 'MANUAL', 'FAILED')];

describe('RecoveryOutcomes', () => {
  it('takes the first manual attempt after the count before the recovery, never an older finished one', () => {
    const watch = new RecoveryOutcomes(new Map([['dlv_a', 3]]));
    expect(watch.see(delivery('dlv_a', 'RETRYING', older))).toBe(false);
    expect(watch.see(delivery('dlv_a', 'RETRYING', [...older, attempt(4, 'MANUAL', 'IN_FLIGHT')]))).toBe(false);
    // A live update's status may lag its attempts: the attempt decides.
    expect(watch.see(delivery('dlv_a', 'RETRYING', [...older, attempt(4, 'MANUAL', 'SUCCEEDED')]))).toBe(true);
    expect(watch.outcomes.get('dlv_a')).toMatchObject({ outcome: 'SUCCEEDED', recoveryAttempt: { number: 4 } });
    expect([watch.succeeded, watch.failed, watch.pending()]).toEqual([1, 0, []]);
  });

  it('learns a delivery failed after the counts were read from the update that queued it, and ignores scheduled retries', () => {
    const watch = new RecoveryOutcomes(new Map());
    expect(watch.see(delivery('dlv_late', 'SUCCEEDED', [...older, attempt(4, 'MANUAL', 'SUCCEEDED')]))).toBe(false);
    expect(watch.see(delivery('dlv_late', 'RETRYING', older))).toBe(false);
    expect(watch.see(delivery('dlv_late', 'FAILED', [...older, attempt(4, 'MANUAL', 'FAILED')]))).toBe(true);
    expect(watch.see(delivery('dlv_new', 'RETRYING', [attempt(1, 'SCHEDULED', 'FAILED')]))).toBe(false);
    expect(watch.see(delivery('dlv_new', 'SUCCEEDED', [attempt(1, 'SCHEDULED', 'FAILED'), attempt(2, 'SCHEDULED', 'SUCCEEDED')]))).toBe(false);
    expect([watch.succeeded, watch.failed]).toEqual([0, 1]);
  });
});
