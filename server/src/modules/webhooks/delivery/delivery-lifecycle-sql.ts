/**
 * The lifecycle's decisions in SQL, generated from delivery-lifecycle.ts's tables: the state of a row,
 * the rows an event may move (the WHERE that refuses a forbidden transition), and the columns it sets.
 * Statements that move deliveries build from these, so none keeps a transition of its own.
 */
import { sqlLiterals, sqlText } from '../../../platform/sql-literals.js';
import {
  ATTEMPT_TRIGGER,
  DeliveryState,
  NextAttempt,
  OPEN_STATES,
  RECORDED_STATES,
  STORED,
  transition,
  TRANSITIONS,
  type DeliveryEvent,
  type RecordedState,
  type StoredState,
} from './delivery-lifecycle.js';

/** Column `name` of row `alias`; unqualified when `alias` is '' (a statement with one table that names none). */
const col = (alias: string, name: string) => (alias ? `${alias}.${name}` : name);

/** The columns a state is stored in, each with the SQL value a state stores there. */
const STATE_COLUMNS = {
  status: (s: StoredState) => sqlLiterals(s.status),
  recovering: (s: StoredState) => String(s.recovering),
  held_reason: (s: StoredState) => (s.heldReason === null ? 'NULL' : sqlText(s.heldReason)),
} as const;

/**
 * The condition that row `alias` is in `state`: its status, and only the flags that tell it from the other
 * states of that status (a flag a state's status alone decides is not read, as stateOf does not read it).
 */
function isIn(alias: string, state: RecordedState): string {
  const stored = STORED[state];
  const sameStatus = RECORDED_STATES.filter((other) => other !== state && STORED[other].status === stored.status).map((other) => STORED[other]);
  const conditions = [`${col(alias, 'status')} = ${sqlLiterals(stored.status)}`];
  if (sameStatus.some((other) => other.recovering !== stored.recovering)) conditions.push(stored.recovering ? `${col(alias, 'recovering')}` : `NOT ${col(alias, 'recovering')}`);
  if (sameStatus.some((other) => (other.heldReason === null) !== (stored.heldReason === null)))
    conditions.push(`${col(alias, 'held_reason')} IS ${stored.heldReason === null ? '' : 'NOT '}NULL`);
  return conditions.join(' AND ');
}

/** Row `alias`'s DeliveryState as SQL text (stateOf in SQL). */
export const stateSql = (alias: string) => `CASE ${RECORDED_STATES.map((state) => `WHEN ${isIn(alias, state)} THEN ${sqlLiterals(state)}`).join(' ')} END`;

/** The states `states` as a condition on row `alias`: by status alone wherever they hold every state of those statuses (what an index on status can serve). */
export function inStates(alias: string, states: readonly RecordedState[]): string {
  const statuses = [...new Set(states.map((state) => STORED[state].status))];
  const whole = RECORDED_STATES.filter((state) => statuses.includes(STORED[state].status)).every((state) => states.includes(state));
  const byStatus = statuses.length === 1 ? `${col(alias, 'status')} = ${sqlLiterals(statuses[0]!)}` : `${col(alias, 'status')} IN (${sqlLiterals(...statuses)})`;
  if (RECORDED_STATES.every((state) => states.includes(state))) return 'true';
  return whole ? byStatus : `${byStatus} AND (${stateSql(alias)}) IN (${sqlLiterals(...states)})`;
}

/** The states `event` may move a delivery from: every other state refuses it. */
export const sourcesOf = (event: DeliveryEvent): RecordedState[] => RECORDED_STATES.filter((state) => TRANSITIONS[state][event] !== undefined);

/** Row `alias` is open: its state has an attempt to come (the engine's queue). */
export const isOpenSql = (alias: string) => inStates(alias, OPEN_STATES);

/** The trigger of the attempt the engine makes of row `alias` (an open one): a recovery's is MANUAL. */
export const attemptTriggerSql = (alias: string) => caseOver(alias, OPEN_STATES, (state) => sqlLiterals(ATTEMPT_TRIGGER[state]!));

/** SQL for each kind of next attempt time a statement can set (those its event's transitions use). */
export type NextAttemptSql = Partial<Record<NextAttempt, string>>;

/**
 * The SET items (status, recovering, held_reason, next_attempt_at) that `event` makes of row `alias`, for
 * the rows `where` admits (its allowed sources: use both). `times` gives the SQL of each next attempt
 * time besides UNCHANGED, AT_CREATION and NONE, which are the row's own; `heldReasonSql`, the SQL of the reason a
 * delivery moved to HELD stores, when not the default. A column every source leaves as
 * it was is left out; one every source sets alike is a constant; otherwise a CASE over the row's state.
 */
export function transitionSql(event: DeliveryEvent, alias: string, times: NextAttemptSql = {}, heldReasonSql?: string): { where: string; set: string } {
  const sources = sourcesOf(event);
  if (sources.length === 0) throw new Error(`no state admits ${event}`);
  const nextOf = (state: RecordedState): string | null => {
    const { next } = transition(state, event);
    if (next === NextAttempt.UNCHANGED) return null;
    if (next === NextAttempt.NONE) return 'NULL';
    if (next === NextAttempt.AT_CREATION) return `${col(alias, 'created_at')}`;
    const sql = times[next];
    if (sql === undefined) throw new Error(`${event} needs the SQL of ${next}`);
    return sql;
  };
  // Per column, the value each source state gets; null where it stays as it is. A state column is written with the
  // target's value whenever any source moves (a source that stays holds that value already), so that it is one constant.
  const columns: [string, (state: RecordedState) => string | null][] = [
    ...Object.entries(STATE_COLUMNS).map(([name, value]): [string, (state: RecordedState) => string | null] => [
      name,
      (state) => {
        if (sources.every((source) => transition(source, event).to === source)) return null;
        const stored = STORED[transition(state, event).to as RecordedState];
        // A held delivery says why it is held: `heldReasonSql` where the statement knows better than the default.
        return name === 'held_reason' && stored.heldReason !== null && heldReasonSql !== undefined ? heldReasonSql : value(stored);
      },
    ]),
    ['next_attempt_at', nextOf],
  ];
  const set = columns.flatMap(([name, valueFor]) => {
    if (sources.every((state) => valueFor(state) === null)) return [];
    const values = new Set(sources.map((state) => valueFor(state)));
    if (values.size === 1) return [`${name} = ${[...values][0]}`];
    return [`${name} = ${caseOver(alias, sources, (state) => valueFor(state) ?? col(alias, name))}`];
  });
  return { where: inStates(alias, sources), set: set.join(', ') };
}

/** The columns a new delivery is stored with after `event` (a recording event, from NEW), as SQL values. */
export function recordedColumnsSql(event: DeliveryEvent, at: string): { status: string; recovering: string; held_reason: string; next_attempt_at: string } {
  const { to: state, next } = transition(DeliveryState.NEW, event);
  const stored = STORED[state as RecordedState];
  if (next !== NextAttempt.AT_EVENT && next !== NextAttempt.NONE) throw new Error(`a recording event sets its next attempt at its time or not at all, not ${next}`);
  return {
    status: STATE_COLUMNS.status(stored),
    recovering: STATE_COLUMNS.recovering(stored),
    held_reason: STATE_COLUMNS.held_reason(stored),
    next_attempt_at: next === NextAttempt.AT_EVENT ? at : 'NULL',
  };
}

/** A CASE over row `alias`'s state, for the states `states` (any other gives NULL). */
function caseOver(alias: string, states: readonly RecordedState[], value: (state: RecordedState) => string): string {
  return `CASE ${states.map((state) => `WHEN ${isIn(alias, state)} THEN ${value(state)}`).join(' ')} END`;
}
