import type { Delivery } from './deliveries.js';

export type Attempt = Delivery['attempts'][number];

/** A delivery as the recovery left it: the attempt the recovery made, and that attempt's outcome. */
export interface RecoveryOutcome {
  id: string;
  appId: string;
  eventName: string;
  purchaseId: string;
  outcome: string;
  recoveryAttempt: Attempt;
}

/**
 * Which attempt of each delivery a recovery made, and how it ended. A delivery's own attempt is its first
 * MANUAL one numbered above its attempt count before the recovery: the last attempt shown can be an older
 * one (an earlier plaza redeliver) while the recovery's waits for a free slot, and a live update's status
 * and attempts are not one snapshot (its attempts are read when it is sent on), so neither is asked.
 */
export class RecoveryOutcomes {
  readonly outcomes = new Map<string, RecoveryOutcome>();

  /** `countsBefore`: the attempt count of each delivery the recovery may queue, read before asking for it. */
  /** `onOutcome`: called once for each delivery, when its recovery attempt is seen finished. */
  constructor(
    private readonly countsBefore: Map<string, number>,
    private readonly onOutcome: (outcome: RecoveryOutcome) => void = () => undefined,
  ) {}

  /** A delivery as seen in a live update or read afresh; true when it gave a delivery its outcome. */
  see(delivery: Delivery): boolean {
    if (this.outcomes.has(delivery.id)) return false;
    let before = this.countsBefore.get(delivery.id);
    if (before === undefined) {
      // Failed after the counts were read, then queued: the update that queued it (RETRYING, no attempt
      // added yet) carries its count before the recovery. Another delivery's scheduled retry is RETRYING
      // too, and is never matched: its attempts are SCHEDULED.
      if (delivery.status !== 'RETRYING') return false;
      this.countsBefore.set(delivery.id, (before = delivery.attemptCount));
    }
    const own = delivery.attempts.find((a) => a.number > before && a.trigger === 'MANUAL');
    if (!own?.finished) return false;
    const outcome = { id: delivery.id, appId: delivery.appId, eventName: delivery.eventName, purchaseId: delivery.purchaseId, outcome: own.outcome, recoveryAttempt: own };
    this.outcomes.set(delivery.id, outcome);
    this.onOutcome(outcome);
    return true;
  }

  /** Deliveries counted before whose recovery attempt has not been seen finished. */
  pending(): string[] {
    return [...this.countsBefore.keys()].filter((id) => !this.outcomes.has(id));
  }

  get succeeded(): number {
    return [...this.outcomes.values()].filter((o) => o.outcome === 'SUCCEEDED').length;
  }

  get failed(): number {
    return this.outcomes.size - this.succeeded;
  }
}
