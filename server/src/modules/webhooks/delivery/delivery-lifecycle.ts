/**
 * A delivery's lifecycle, written once: its states, the events that move it, and the one table that
 * decides where each event takes it and when its next attempt is due. The TypeScript decides with
 * `decide`; the SQL takes its decisions from the same table (delivery-lifecycle-sql.ts builds its CASEs
 * and WHERE clauses from it), so no statement keeps a copy of a transition (conventions.md 18, as
 * pg-boss's plans.ts builds from its frozen JOB_STATES).
 *
 * The states are finer than the API's DeliveryStatus, and each maps onto one of its four values with the
 * meaning the contract gives it. They need no column of their own: each is stored as it always was, as
 * (status, recovering, held_reason), so workers of the previous release read and write the same rows.
 */
import { isTestPurchaseId } from '../../../platform/ids.js';
import { AttemptTrigger, DeliveryStatus, HELD_WHILE_DISABLED } from '../webhook.types.js';

export enum DeliveryState {
  /** Not recorded yet: where the recording events start. Never stored. */
  NEW = 'NEW',
  /** Recorded, not attempted yet, due at once. API: PENDING. */
  PENDING = 'PENDING',
  /** A scheduled attempt failed; the next one is due after the retry schedule's delay. API: RETRYING. */
  RETRY_SCHEDULED = 'RETRY_SCHEDULED',
  /** Queued by recoverWebhookDeliveries for one MANUAL attempt, which starts no schedule. API: RETRYING. */
  RECOVERY_QUEUED = 'RECOVERY_QUEUED',
  /** An attempt got a 2xx. API: SUCCEEDED. */
  SUCCEEDED = 'SUCCEEDED',
  /** Gave up: no scheduled attempt left, a recovery's one attempt failed, or its body is gone. API: FAILED. */
  FAILED = 'FAILED',
  /** Not sent because its endpoint was paused or disabled (heldReason says which); recovery sends it. API: FAILED. */
  HELD = 'HELD',
}

export enum DeliveryEvent {
  /** The event was recorded for an app whose webhook is enabled. */
  RECORDED = 'RECORDED',
  /** The event was recorded while its endpoint was paused or disabled: kept, not sent. */
  RECORDED_WHILE_DISABLED = 'RECORDED_WHILE_DISABLED',
  /** A claimed attempt (scheduled, or a recovery's) got a 2xx. */
  ATTEMPT_SUCCEEDED = 'ATTEMPT_SUCCEEDED',
  /** A claimed attempt failed and the retry schedule has a delay left. */
  ATTEMPT_FAILED_RETRY_LEFT = 'ATTEMPT_FAILED_RETRY_LEFT',
  /** A claimed attempt failed and the retry schedule has nothing left (a test event's never has). */
  ATTEMPT_FAILED_NO_RETRY_LEFT = 'ATTEMPT_FAILED_NO_RETRY_LEFT',
  /** Claimed as its endpoint was paused or disabled: nothing was sent. */
  CLAIMED_WHILE_DISABLED = 'CLAIMED_WHILE_DISABLED',
  /** Claimed without its body (WEBHOOK_BODY_RETENTION removed it): nothing was sent, and nothing ever can be. */
  BODY_GONE = 'BODY_GONE',
  /** A manual redelivery (redeliverWebhook, plaza redeliver) got a 2xx. */
  MANUAL_ATTEMPT_SUCCEEDED = 'MANUAL_ATTEMPT_SUCCEEDED',
  /** A manual redelivery failed: it starts no schedule (decisions.md), so it changes nothing. */
  MANUAL_ATTEMPT_FAILED = 'MANUAL_ATTEMPT_FAILED',
  /** recoverWebhookDeliveries queued it for one MANUAL attempt. */
  RECOVERY_QUEUED = 'RECOVERY_QUEUED',
  /** Found open, unclaimed, with its endpoint paused (by its owner) or disabled (by the health sweep). */
  WEBHOOK_DISABLED = 'WEBHOOK_DISABLED',
  /** Its endpoint was deleted: nowhere is left to send it, so an open delivery gives up (it stays in the log). */
  ENDPOINT_DELETED = 'ENDPOINT_DELETED',
}

/** When the next attempt is due once a transition is made. */
export enum NextAttempt {
  /** At the event's own time (a new delivery is due at once). */
  AT_EVENT = 'AT_EVENT',
  /** The event's time plus the retry schedule's next delay (each counted from the end of the previous attempt). */
  AFTER_RETRY_DELAY = 'AFTER_RETRY_DELAY',
  /** At the delivery's creation: a recovery's backlog is sent oldest first by the engine's time order. */
  AT_CREATION = 'AT_CREATION',
  /** As it was. */
  UNCHANGED = 'UNCHANGED',
  /** None: nothing is due. */
  NONE = 'NONE',
}

export interface Transition {
  readonly to: DeliveryState;
  readonly next: NextAttempt;
}

const to = (state: DeliveryState, next: NextAttempt): Transition => ({ to: state, next });
const { NEW, PENDING, RETRY_SCHEDULED, RECOVERY_QUEUED, SUCCEEDED, FAILED, HELD } = DeliveryState;
const E = DeliveryEvent;
const N = NextAttempt;

/**
 * Every allowed transition; a (state, event) pair not listed is forbidden (decide throws, the SQL's WHERE
 * refuses the row). A manual attempt is allowed from every recorded state and never moves a delivery
 * anywhere but SUCCEEDED; a recovery's attempt is MANUAL, so even with the schedule not used up its
 * failure ends FAILED.
 */
export const TRANSITIONS: Readonly<Record<DeliveryState, Readonly<Partial<Record<DeliveryEvent, Transition>>>>> = deepFreeze({
  [NEW]: {
    [E.RECORDED]: to(PENDING, N.AT_EVENT),
    [E.RECORDED_WHILE_DISABLED]: to(HELD, N.NONE),
  },
  [PENDING]: {
    [E.ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.ATTEMPT_FAILED_RETRY_LEFT]: to(RETRY_SCHEDULED, N.AFTER_RETRY_DELAY),
    [E.ATTEMPT_FAILED_NO_RETRY_LEFT]: to(FAILED, N.NONE),
    [E.CLAIMED_WHILE_DISABLED]: to(HELD, N.NONE),
    [E.BODY_GONE]: to(FAILED, N.NONE),
    [E.MANUAL_ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.MANUAL_ATTEMPT_FAILED]: to(PENDING, N.UNCHANGED),
    [E.WEBHOOK_DISABLED]: to(HELD, N.NONE),
    [E.ENDPOINT_DELETED]: to(FAILED, N.NONE),
  },
  [RETRY_SCHEDULED]: {
    [E.ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.ATTEMPT_FAILED_RETRY_LEFT]: to(RETRY_SCHEDULED, N.AFTER_RETRY_DELAY),
    [E.ATTEMPT_FAILED_NO_RETRY_LEFT]: to(FAILED, N.NONE),
    [E.CLAIMED_WHILE_DISABLED]: to(HELD, N.NONE),
    [E.BODY_GONE]: to(FAILED, N.NONE),
    [E.MANUAL_ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.MANUAL_ATTEMPT_FAILED]: to(RETRY_SCHEDULED, N.UNCHANGED),
    [E.WEBHOOK_DISABLED]: to(HELD, N.NONE),
    [E.ENDPOINT_DELETED]: to(FAILED, N.NONE),
  },
  [RECOVERY_QUEUED]: {
    [E.ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.ATTEMPT_FAILED_RETRY_LEFT]: to(FAILED, N.NONE),
    [E.ATTEMPT_FAILED_NO_RETRY_LEFT]: to(FAILED, N.NONE),
    [E.CLAIMED_WHILE_DISABLED]: to(HELD, N.NONE),
    [E.BODY_GONE]: to(FAILED, N.NONE),
    [E.MANUAL_ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.MANUAL_ATTEMPT_FAILED]: to(RECOVERY_QUEUED, N.UNCHANGED),
    [E.WEBHOOK_DISABLED]: to(HELD, N.NONE),
    [E.ENDPOINT_DELETED]: to(FAILED, N.NONE),
  },
  [SUCCEEDED]: {
    [E.MANUAL_ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.MANUAL_ATTEMPT_FAILED]: to(SUCCEEDED, N.UNCHANGED),
  },
  [FAILED]: {
    [E.MANUAL_ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.MANUAL_ATTEMPT_FAILED]: to(FAILED, N.UNCHANGED),
    [E.RECOVERY_QUEUED]: to(RECOVERY_QUEUED, N.AT_CREATION),
  },
  [HELD]: {
    [E.MANUAL_ATTEMPT_SUCCEEDED]: to(SUCCEEDED, N.NONE),
    [E.MANUAL_ATTEMPT_FAILED]: to(HELD, N.UNCHANGED),
    [E.RECOVERY_QUEUED]: to(RECOVERY_QUEUED, N.AT_CREATION),
  },
});

/** How a recorded state is stored: the API's status, and the two columns that tell the finer states apart. */
export interface StoredState {
  readonly status: DeliveryStatus;
  readonly recovering: boolean;
  readonly heldReason: string | null;
}

export const STORED: Readonly<Record<Exclude<DeliveryState, DeliveryState.NEW>, StoredState>> = deepFreeze({
  [PENDING]: { status: DeliveryStatus.PENDING, recovering: false, heldReason: null },
  [RETRY_SCHEDULED]: { status: DeliveryStatus.RETRYING, recovering: false, heldReason: null },
  [RECOVERY_QUEUED]: { status: DeliveryStatus.RETRYING, recovering: true, heldReason: null },
  [SUCCEEDED]: { status: DeliveryStatus.SUCCEEDED, recovering: false, heldReason: null },
  [FAILED]: { status: DeliveryStatus.FAILED, recovering: false, heldReason: null },
  [HELD]: { status: DeliveryStatus.FAILED, recovering: false, heldReason: HELD_WHILE_DISABLED },
});

export type RecordedState = keyof typeof STORED;
export const RECORDED_STATES = Object.keys(STORED) as RecordedState[];

/**
 * The states the engine claims and attempts, with the trigger their attempt is recorded with: a recovery's
 * is MANUAL. A scheduled attempt moves the retry schedule on (scheduled_attempts_done); a manual one never.
 */
export const ATTEMPT_TRIGGER: Readonly<Partial<Record<DeliveryState, AttemptTrigger>>> = deepFreeze({
  [PENDING]: AttemptTrigger.SCHEDULED,
  [RETRY_SCHEDULED]: AttemptTrigger.SCHEDULED,
  [RECOVERY_QUEUED]: AttemptTrigger.MANUAL,
});

/** States with an attempt to come, as the engine's queue holds them. */
export const OPEN_STATES = Object.keys(ATTEMPT_TRIGGER) as RecordedState[];

/** Their statuses: the API's PENDING and RETRYING. No settled state shares one (checked below), so a status alone says open. */
export const OPEN_STATUSES: readonly DeliveryStatus[] = Object.freeze([...new Set(OPEN_STATES.map((state) => STORED[state].status))]);
/** Every status that is not open: nothing left to attempt. */
export const SETTLED_STATUSES: readonly DeliveryStatus[] = Object.freeze(Object.values(DeliveryStatus).filter((status) => !OPEN_STATUSES.includes(status)));

/** The state of a stored delivery. A status whose finer states differ by nothing it stores reads as its only state. */
export function stateOf(row: { status: string; recovering?: boolean | null; held_reason?: string | null }): RecordedState {
  switch (row.status) {
    case DeliveryStatus.PENDING:
      return PENDING;
    case DeliveryStatus.RETRYING:
      return row.recovering ? RECOVERY_QUEUED : RETRY_SCHEDULED;
    case DeliveryStatus.SUCCEEDED:
      // An earlier release left `recovering` set on a recovery redelivered by hand: SUCCEEDED all the same.
      return SUCCEEDED;
    case DeliveryStatus.FAILED:
      return row.held_reason ? HELD : FAILED;
    default:
      throw new Error(`a delivery with an unknown status: ${row.status}`);
  }
}

export class ForbiddenTransition extends Error {
  constructor(
    readonly from: DeliveryState,
    readonly event: DeliveryEvent,
  ) {
    super(`a delivery cannot go through ${event} from ${from}`);
  }
}

/** What the next attempt's time is computed from. */
export interface TransitionFacts {
  /** When the event happened: the record's time, the attempt's end. */
  at: Date;
  /** AFTER_RETRY_DELAY: the retry schedule's next delay in ms (retryDelay). */
  retryDelayMs?: number;
  /** AT_CREATION: when the delivery was recorded. */
  createdAt?: Date;
  /** UNCHANGED: its next attempt as it is. */
  nextAttemptAt?: Date | null;
  /** To HELD: why it is held, when not the default (its endpoint disabled): HELD_WHILE_PAUSED. */
  heldReason?: string;
}

export interface Decision extends StoredState {
  readonly state: RecordedState;
  readonly nextAttemptAt: Date | null;
}

/** The transition `event` makes from `from`; throws ForbiddenTransition when there is none. */
export function transition(from: DeliveryState, event: DeliveryEvent): Transition {
  const made = TRANSITIONS[from][event];
  if (!made) throw new ForbiddenTransition(from, event);
  return made;
}

/** The one decision: where `event` takes a delivery in state `from`, stored how, and when its next attempt is due. */
export function decide(from: DeliveryState, event: DeliveryEvent, facts: TransitionFacts): Decision {
  const { to: state, next } = transition(from, event);
  const required = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`${from} -> ${state} on ${event} needs ${name}`);
    return value;
  };
  const nextAttemptAt = {
    [N.AT_EVENT]: () => facts.at,
    [N.AFTER_RETRY_DELAY]: () => new Date(facts.at.getTime() + required(facts.retryDelayMs, 'retryDelayMs')),
    [N.AT_CREATION]: () => required(facts.createdAt, 'createdAt'),
    [N.UNCHANGED]: () => required(facts.nextAttemptAt, 'nextAttemptAt'),
    [N.NONE]: () => null,
  }[next]();
  const stored = STORED[state as RecordedState];
  return { state: state as RecordedState, ...stored, heldReason: stored.heldReason !== null && facts.heldReason ? facts.heldReason : stored.heldReason, nextAttemptAt };
}

/**
 * The retry policy (conventions.md 6: data, from config): the wait before the next scheduled attempt once
 * `scheduledAttemptsDone` scheduled attempts have failed, undefined when none is left. A test event
 * (sendTestWebhook; its purchase_id is APP-<ms>-TEST..) has an empty schedule: it is sent once, since
 * retried, each cheap request to send one bought six attempts.
 */
export function retryDelay(retryScheduleMs: readonly number[], scheduledAttemptsDone: number, purchaseId: string): number | undefined {
  if (isTestPurchaseId(purchaseId)) return undefined;
  return retryScheduleMs[scheduledAttemptsDone - 1];
}

/** What a claimed attempt's end tells: the event it is for the delivery. */
export function attemptEnded({
  webhookDisabled,
  bodyKept,
  succeeded,
  retryDelayMs,
}: {
  webhookDisabled: boolean;
  bodyKept: boolean;
  succeeded: boolean;
  retryDelayMs: number | undefined;
}): DeliveryEvent {
  if (webhookDisabled) return E.CLAIMED_WHILE_DISABLED;
  if (!bodyKept) return E.BODY_GONE;
  if (succeeded) return E.ATTEMPT_SUCCEEDED;
  return retryDelayMs === undefined ? E.ATTEMPT_FAILED_NO_RETRY_LEFT : E.ATTEMPT_FAILED_RETRY_LEFT;
}

/** The lifecycle as a mermaid state diagram, drawn from TRANSITIONS (the README's copy is this function's output). */
export function lifecycleDiagram(): string {
  const name = (state: DeliveryState) => (state === NEW ? '[*]' : state);
  const lines = ['stateDiagram-v2'];
  for (const state of RECORDED_STATES) lines.push(`  ${state}: ${state} (API ${STORED[state].status})`);
  for (const [from, events] of Object.entries(TRANSITIONS) as [DeliveryState, Partial<Record<DeliveryEvent, Transition>>][]) {
    const byTarget = new Map<string, string[]>();
    for (const [event, { to: target, next }] of Object.entries(events) as [DeliveryEvent, Transition][]) {
      const label = next === N.NONE || next === N.UNCHANGED ? event : `${event}, next ${next}`;
      byTarget.set(target, [...(byTarget.get(target) ?? []), label]);
    }
    for (const [target, labels] of byTarget) lines.push(`  ${name(from)} --> ${name(target as DeliveryState)}: ${labels.join(' / ')}`);
  }
  return lines.join('\n');
}

/** A settled state shares no status with an open one, or a status alone could not say whether a delivery is queued. */
for (const state of RECORDED_STATES) {
  if (!OPEN_STATES.includes(state) && OPEN_STATUSES.includes(STORED[state].status)) throw new Error(`${state} is settled but stored as an open status`);
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  return Object.freeze(value);
}
