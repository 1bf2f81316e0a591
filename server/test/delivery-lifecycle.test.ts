import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTEMPT_TRIGGER,
  attemptEnded,
  decide,
  DeliveryEvent as E,
  DeliveryState as S,
  ForbiddenTransition,
  lifecycleDiagram,
  NextAttempt as N,
  OPEN_STATUSES,
  RECORDED_STATES,
  retryDelay,
  SETTLED_STATUSES,
  stateOf,
  STORED,
  type DeliveryState,
  type RecordedState,
} from '../src/modules/webhooks/delivery/delivery-lifecycle.js';
import { attemptTriggerSql, isOpenSql, recordedColumnsSql, stateSql, transitionSql } from '../src/modules/webhooks/delivery/delivery-lifecycle-sql.js';
import { AttemptTrigger, DeliveryStatus, HELD_WHILE_DISABLED } from '../src/modules/webhooks/webhook.types.js';
import { REPO_ROOT } from '../src/config.js';
import { createTestDatabase } from './helpers/database.js';

// conventions.md 18: every (state, event) pair, the forbidden ones included. This table is the specification
// written out again on purpose: a transition changed in delivery-lifecycle.ts must be changed here too.
const ATTEMPT_ENDS = {
  [E.ATTEMPT_SUCCEEDED]: [S.SUCCEEDED, N.NONE],
  [E.ATTEMPT_FAILED_RETRY_LEFT]: [S.RETRY_SCHEDULED, N.AFTER_RETRY_DELAY],
  [E.ATTEMPT_FAILED_NO_RETRY_LEFT]: [S.FAILED, N.NONE],
  [E.CLAIMED_WHILE_DISABLED]: [S.HELD, N.NONE],
  [E.BODY_GONE]: [S.FAILED, N.NONE],
  [E.MANUAL_ATTEMPT_SUCCEEDED]: [S.SUCCEEDED, N.NONE],
  [E.WEBHOOK_DISABLED]: [S.HELD, N.NONE],
  [E.ENDPOINT_DELETED]: [S.FAILED, N.NONE],
} as const;
const EXPECTED: Record<DeliveryState, Partial<Record<E, readonly [DeliveryState, N]>>> = {
  [S.NEW]: { [E.RECORDED]: [S.PENDING, N.AT_EVENT], [E.RECORDED_WHILE_DISABLED]: [S.HELD, N.NONE] },
  [S.PENDING]: { ...ATTEMPT_ENDS, [E.MANUAL_ATTEMPT_FAILED]: [S.PENDING, N.UNCHANGED] },
  [S.RETRY_SCHEDULED]: { ...ATTEMPT_ENDS, [E.MANUAL_ATTEMPT_FAILED]: [S.RETRY_SCHEDULED, N.UNCHANGED] },
  // A recovery's attempt is MANUAL: it starts no schedule, so a failure ends FAILED whatever the schedule has left.
  [S.RECOVERY_QUEUED]: { ...ATTEMPT_ENDS, [E.ATTEMPT_FAILED_RETRY_LEFT]: [S.FAILED, N.NONE], [E.MANUAL_ATTEMPT_FAILED]: [S.RECOVERY_QUEUED, N.UNCHANGED] },
  [S.SUCCEEDED]: { [E.MANUAL_ATTEMPT_SUCCEEDED]: [S.SUCCEEDED, N.NONE], [E.MANUAL_ATTEMPT_FAILED]: [S.SUCCEEDED, N.UNCHANGED] },
  [S.FAILED]: { [E.MANUAL_ATTEMPT_SUCCEEDED]: [S.SUCCEEDED, N.NONE], [E.MANUAL_ATTEMPT_FAILED]: [S.FAILED, N.UNCHANGED], [E.RECOVERY_QUEUED]: [S.RECOVERY_QUEUED, N.AT_CREATION] },
  [S.HELD]: { [E.MANUAL_ATTEMPT_SUCCEEDED]: [S.SUCCEEDED, N.NONE], [E.MANUAL_ATTEMPT_FAILED]: [S.HELD, N.UNCHANGED], [E.RECOVERY_QUEUED]: [S.RECOVERY_QUEUED, N.AT_CREATION] },
};

const AT = new Date('2030-01-01T00:00:10.000Z');
const CREATED = new Date('2030-01-01T00:00:00.000Z');
const NEXT = new Date('2030-01-01T00:05:00.000Z');
const DELAY = 30_000;
const FACTS = { at: AT, retryDelayMs: DELAY, createdAt: CREATED, nextAttemptAt: NEXT };
const NEXT_AT: Record<N, Date | null> = {
  [N.AT_EVENT]: AT,
  [N.AFTER_RETRY_DELAY]: new Date(AT.getTime() + DELAY),
  [N.AT_CREATION]: CREATED,
  [N.UNCHANGED]: NEXT,
  [N.NONE]: null,
};

const PAIRS = Object.values(S).flatMap((state) => Object.values(E).map((event) => ({ state, event, expected: EXPECTED[state][event] })));

describe('the delivery lifecycle (delivery-lifecycle.ts)', () => {
  it.each(PAIRS.filter((p) => p.expected))('$state on $event goes where the specification says, due when it says', ({ state, event, expected }) => {
    const [target, next] = expected!;
    const decision = decide(state, event, FACTS);
    expect(decision.state).toBe(target);
    expect(decision.nextAttemptAt).toEqual(NEXT_AT[next]);
    // Stored as before: the API's status, with the finer state in recovering and held_reason.
    expect({ status: decision.status, recovering: decision.recovering, heldReason: decision.heldReason }).toEqual(STORED[target as RecordedState]);
  });

  it.each(PAIRS.filter((p) => !p.expected))('$state on $event is forbidden', ({ state, event }) => {
    expect(() => decide(state, event, FACTS)).toThrow(ForbiddenTransition);
  });

  it('maps every state onto the contract’s four statuses with their meaning, and reads each back from what it stores', () => {
    expect(Object.fromEntries(RECORDED_STATES.map((state) => [state, STORED[state].status]))).toEqual({
      PENDING: DeliveryStatus.PENDING,
      RETRY_SCHEDULED: DeliveryStatus.RETRYING,
      RECOVERY_QUEUED: DeliveryStatus.RETRYING,
      SUCCEEDED: DeliveryStatus.SUCCEEDED,
      FAILED: DeliveryStatus.FAILED,
      HELD: DeliveryStatus.FAILED,
    });
    for (const state of RECORDED_STATES) {
      const stored = STORED[state];
      expect(stateOf({ status: stored.status, recovering: stored.recovering, held_reason: stored.heldReason })).toBe(state);
    }
    // An earlier release left `recovering` set on a recovery that a manual attempt settled.
    expect(stateOf({ status: DeliveryStatus.SUCCEEDED, recovering: true, held_reason: null })).toBe(S.SUCCEEDED);
    expect(STORED[S.HELD].heldReason).toBe(HELD_WHILE_DISABLED);
    expect(OPEN_STATUSES).toEqual([DeliveryStatus.PENDING, DeliveryStatus.RETRYING]);
    expect(SETTLED_STATUSES).toEqual([DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED]);
    expect(ATTEMPT_TRIGGER).toEqual({ PENDING: AttemptTrigger.SCHEDULED, RETRY_SCHEDULED: AttemptTrigger.SCHEDULED, RECOVERY_QUEUED: AttemptTrigger.MANUAL });
  });

  it('names the event an attempt’s end is, with the retry policy (a test event has no schedule)', () => {
    const schedule = [5_000, 30_000];
    expect(retryDelay(schedule, 1, 'APP-1700000000000-ABC123')).toBe(5_000);
    expect(retryDelay(schedule, 3, 'APP-1700000000000-ABC123')).toBeUndefined();
    expect(retryDelay(schedule, 1, 'APP-1700000000000-TEST7Q')).toBeUndefined();
    const ended = (over: Partial<Parameters<typeof attemptEnded>[0]>) => attemptEnded({ webhookDisabled: false, bodyKept: true, succeeded: false, retryDelayMs: 5_000, ...over });
    expect(ended({ succeeded: true })).toBe(E.ATTEMPT_SUCCEEDED);
    expect(ended({})).toBe(E.ATTEMPT_FAILED_RETRY_LEFT);
    expect(ended({ retryDelayMs: undefined })).toBe(E.ATTEMPT_FAILED_NO_RETRY_LEFT);
    expect(ended({ bodyKept: false })).toBe(E.BODY_GONE);
    expect(ended({ webhookDisabled: true, bodyKept: false })).toBe(E.CLAIMED_WHILE_DISABLED);
  });

  it('draws its diagram from the table: one arrow per (state, target) pair it allows', () => {
    const diagram = lifecycleDiagram();
    const arrows = new Set(PAIRS.filter((p) => p.expected).map(({ state, expected }) => `${state === S.NEW ? '[*]' : state} --> ${expected![0]}`));
    expect(diagram.split('\n').filter((line) => line.includes('-->')).length).toBe(arrows.size);
    for (const arrow of arrows) expect(diagram).toContain(arrow);
  });

  it('is the diagram README.md shows, so the picture a newcomer reads cannot drift from the table', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const shown = /```mermaid\n(stateDiagram-v2\n[\s\S]*?)\n```/.exec(readme)?.[1];
    expect(shown).toBe(lifecycleDiagram());
  });
});

describe('the lifecycle in SQL (delivery-lifecycle-sql.ts) decides as the table does, on real PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase() });
    await client.connect();
    // Only the columns the lifecycle reads and writes, as webhook_deliveries has them.
    await client.query(`CREATE TABLE d (id text PRIMARY KEY, status text NOT NULL, recovering boolean NOT NULL DEFAULT false, held_reason text,
                          next_attempt_at timestamptz, created_at timestamptz NOT NULL)`);
  });
  afterAll(() => client?.end());

  const storeEveryState = async () => {
    await client.query('TRUNCATE d');
    for (const state of RECORDED_STATES) {
      const stored = STORED[state];
      await client.query('INSERT INTO d VALUES ($1, $2, $3, $4, $5, $6)', [state, stored.status, stored.recovering, stored.heldReason, NEXT, CREATED]);
    }
  };

  it('reads each stored state as stateOf does, the open ones as open, each with its attempt’s trigger', async () => {
    await storeEveryState();
    const { rows } = await client.query(`SELECT id, ${stateSql('d')} AS state, ${isOpenSql('d')} AS open, ${attemptTriggerSql('d')} AS trigger FROM d ORDER BY id`);
    for (const row of rows) {
      expect(row.state).toBe(row.id);
      expect(row.open).toBe(ATTEMPT_TRIGGER[row.id as RecordedState] !== undefined);
      expect(row.trigger).toBe(ATTEMPT_TRIGGER[row.id as RecordedState] ?? null);
    }
  });

  const UPDATES = [E.MANUAL_ATTEMPT_SUCCEEDED, E.MANUAL_ATTEMPT_FAILED, E.RECOVERY_QUEUED, E.WEBHOOK_DISABLED, E.ATTEMPT_SUCCEEDED, E.ATTEMPT_FAILED_RETRY_LEFT, E.BODY_GONE];
  it.each(UPDATES)('moves the rows %s may move, as decide does, and refuses every other', async (event) => {
    await storeEveryState();
    const { where, set } = transitionSql(event, 'd', { [N.AFTER_RETRY_DELAY]: `$1::timestamptz + $2 * interval '1 millisecond'` });
    const params = set.includes('$1') || where.includes('$1') ? [AT, DELAY] : [];
    const { rows } = await client.query(
      `UPDATE d SET ${[set, 'id = d.id'].filter(Boolean).join(', ')} WHERE ${where} RETURNING id, status, recovering, held_reason, next_attempt_at`,
      params,
    );
    const moved = Object.fromEntries(rows.map((row) => [row.id, row]));
    for (const from of RECORDED_STATES) {
      const expected = EXPECTED[from][event];
      if (!expected) {
        expect(moved[from], `${from} refuses ${event}`).toBeUndefined();
        continue;
      }
      const decision = decide(from, event, FACTS);
      expect({ state: stateOf(moved[from]), next: moved[from].next_attempt_at }, `${from} on ${event}`).toEqual({ state: decision.state, next: decision.nextAttemptAt });
      expect(moved[from].held_reason).toBe(decision.heldReason);
      expect(moved[from].recovering).toBe(decision.recovering);
    }
  });

  it('records a new delivery as RECORDED and RECORDED_WHILE_DISABLED say', async () => {
    for (const event of [E.RECORDED, E.RECORDED_WHILE_DISABLED]) {
      const c = recordedColumnsSql(event, '$1::timestamptz');
      const { rows } = await client.query(
        `SELECT ${c.status} AS status, ${c.recovering} AS recovering, ${c.held_reason} AS held_reason, ${c.next_attempt_at} AS next_attempt_at`,
        c.next_attempt_at.includes('$1') ? [AT] : [],
      );
      const decision = decide(S.NEW, event, FACTS);
      expect(stateOf(rows[0])).toBe(decision.state);
      expect(rows[0].next_attempt_at).toEqual(decision.nextAttemptAt);
    }
  });
});
