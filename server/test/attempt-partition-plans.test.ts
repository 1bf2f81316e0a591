import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS } from '../src/modules/webhooks/attempt-retention.js';
import { rollUp } from '../src/modules/webhooks/delivery/attempt-rollup.js';
import { CLAIM_DUE_DELIVERIES, HAND_BACK, WRITE_RESULTS } from '../src/modules/webhooks/delivery/delivery-queries.js';
import { INTERRUPTED, RECORD_LATE_OUTCOMES, recordAttemptsBounds } from '../src/modules/webhooks/delivery/sql-fragments.js';
import { ATTEMPTS_OF_DELIVERIES, DELIVERY_WITH_ATTEMPTS } from '../src/modules/webhooks/delivery/log-queries.js';
import { CLOSE_ABANDONED_ATTEMPTS } from '../src/modules/webhooks/delivery/manual-and-recovery-queries.js';
import { newWebhookId } from '../src/platform/ids.js';
import { buildConcurrentIndexes } from '../src/platform/migrations/concurrent-indexes.js';
import { ensurePartitions, listPartitions, PARTITION_SPAN_MS } from '../src/platform/time-partitions.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { emitEvent, succeededResult } from './helpers/webhooks.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops': number;
  /** Descents of the index (PostgreSQL 18): none for a scan by an empty list of keys. */
  'Index Searches'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
}

/** How much of `table`'s partitions was read under `node`: index descents, or the pages a scan without an index read (none of an empty partition). */
const readsOf = (node: PlanNode, table: string) =>
  nodesOf(node)
    .filter((n) => n['Relation Name']?.startsWith(`${table}_`))
    .reduce((sum, n) => sum + (n['Index Searches'] ?? (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0)), 0);
interface Explained {
  Plan: PlanNode;
  'Planning Time': number;
  'Execution Time': number;
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
/**
 * The partitions of `table` a plan pruned while it ran: those an Append (or MergeAppend) over them ran fewer times
 * than itself, each run choosing its partitions anew (by a joined row's key, or a value worked out in the statement).
 * Pruning as the statement is planned or starts leaves every remaining partition run as often as its Append.
 */
const prunedWhileRunning = (plan: PlanNode, table: string) =>
  nodesOf(plan)
    .filter((n) => (n['Node Type'] === 'Append' || n['Node Type'] === 'Merge Append') && n['Actual Loops'] > 0)
    .flatMap((append) =>
      (append.Plans ?? [])
        .flatMap((child) =>
          nodesOf(child)
            .filter((n) => n['Relation Name']?.startsWith(`${table}_`))
            .slice(0, 1),
        )
        .filter((scan) => scan['Actual Loops'] < append['Actual Loops'])
        .map((scan) => `${scan['Relation Name']} ran ${scan['Actual Loops']} of ${append['Actual Loops']} times`),
    );
/** The partitions of `table` a plan read (a scan that ran at least once), and those it planned at all. */
const partitionsOf = (plan: PlanNode, table: string) => {
  const scans = nodesOf(plan).filter((n) => n['Relation Name']?.startsWith(`${table}_`));
  return { read: new Set(scans.filter((n) => n['Actual Loops'] > 0).map((n) => n['Relation Name'])), planned: new Set(scans.map((n) => n['Relation Name'])) };
};
/**
 * None of `table`'s partitions under `scope` (the whole plan unless given) left to prune while `plan` ran, and none
 * pruned while it ran: pruned as it was planned or as it started. Run-time pruning in a statement a concurrent change
 * makes PostgreSQL 18.4 recheck crashed its backends (recordAttemptsBounds).
 */
function expectNoPruningWhileRunning(plan: PlanNode, table: string, scope: PlanNode = plan): void {
  const { read, planned } = partitionsOf(scope, table);
  expect(read, `${table} partitions left to prune while it runs`).toEqual(planned);
  expect(prunedWhileRunning(plan, table), `${table} partitions pruned while it ran`).toEqual([]);
}

const DAYS = 60;
const PER_DAY = 200;
const DAY = 86_400_000;

let plaza: TestPlaza;
let db: DataSource;
/** Delivery ids per day, oldest day first. */
const byDay: string[][] = [];
let appId: string;

/** EXPLAIN ANALYZE in a transaction rolled back after, as a custom plan (as an unnamed statement gets) or a generic one (as a prepared one may). */
async function explain(statement: string, params: unknown[], generic = false): Promise<Explained> {
  const runner = db.createQueryRunner();
  await runner.startTransaction();
  try {
    await runner.query(`SET LOCAL plan_cache_mode = ${generic ? 'force_generic_plan' : 'force_custom_plan'}`);
    if (!generic) return (await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params))[0]['QUERY PLAN'][0];
    await runner.query(`PREPARE measured AS ${statement}`);
    const literal = (v: unknown) => (v === null ? 'NULL' : `'${(typeof v === 'string' ? v : Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replaceAll("'", "''")}'`);
    try {
      return (await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE measured(${params.map(literal).join(', ')})`))[0]['QUERY PLAN'][0];
    } finally {
      await runner.query('DEALLOCATE measured');
    }
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

beforeAll(async () => {
  plaza = await startTestPlaza({ RUN_WORKER: 'false' });
  db = plaza.services.db;
  const developer = await plaza.signIn('partition-plans@studio.test');
  appId = (await submitApp(developer, { webhookUrl: 'https://hooks.example/plans' })).id;
  const seed = await emitEvent(plaza, appId);
  const now = Date.now();
  for (const t of [ATTEMPT_PARTITIONS, REQUEST_HEADER_PARTITIONS]) await ensurePartitions(db, t, now - (DAYS - 3) * DAY, now + 2 * DAY);
  // DAYS days of settled deliveries, two attempts and the shared headers each (the seed delivery's event and app).
  for (let d = DAYS - 3; d >= -1; d--) {
    const ids = Array.from({ length: PER_DAY }, (_, k) => newWebhookId.delivery(now - d * DAY - k * 1000));
    byDay.push(ids);
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
       SELECT i, event_id, app_id, event_type, purchase_id, 'SUCCEEDED', 2, 2, now(), now() FROM webhook_deliveries, unnest($2::text[]) i WHERE id = $1`,
      [seed.id, ids],
    );
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished)
       SELECT i, n, 'SCHEDULED', now(), 12, 200, true FROM unnest($1::text[]) i, generate_series(1, 2) n`,
      [ids],
    );
    await db.query(`INSERT INTO webhook_request_headers (delivery_id, headers) SELECT i, '{"x-platform-event": "app.purchased"}' FROM unnest($1::text[]) i`, [ids]);
  }
  await db.query('ANALYZE webhook_deliveries, webhook_attempts, webhook_request_headers');
}, 120_000);

afterAll(async () => {
  await plaza?.stop();
});

describe('attempts partitioned by time', () => {
  it('has the partitions the plans below are measured with', async () => {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'webhook_attempts'::regclass`);
    expect(n).toBeGreaterThanOrEqual(Math.floor((DAYS * 86_400_000) / PARTITION_SPAN_MS));
  });

  it('reads the attempts of a page of deliveries from the partitions holding them alone, planned once or per call', async () => {
    const page = [...byDay.at(-2)!.slice(0, 25), ...byDay.at(-3)!.slice(0, 25)];
    for (const generic of [false, true]) {
      const explained = await explain(ATTEMPTS_OF_DELIVERIES, [page], generic);
      const attempts = partitionsOf(explained.Plan, 'webhook_attempts');
      const headers = partitionsOf(explained.Plan, 'webhook_request_headers');
      console.log(
        `ATTEMPTS_OF_DELIVERIES ${generic ? 'generic' : 'custom'}: planning ${explained['Planning Time']} ms, execution ${explained['Execution Time']} ms, attempts read ${attempts.read.size}/${attempts.planned.size}, headers read ${headers.read.size}/${headers.planned.size}`,
      );
      expect(attempts.read.size, 'attempt partitions read').toBeLessThanOrEqual(2);
      expect(headers.read.size, 'header partitions read').toBeLessThanOrEqual(2);
    }
  });

  it('reads one delivery with its attempts (webhookDelivery) from the partitions holding them alone, planned once or per call', async () => {
    const id = byDay.at(-3)![7]!;
    for (const generic of [false, true]) {
      const explained = await explain(DELIVERY_WITH_ATTEMPTS, [id], generic);
      const attempts = partitionsOf(explained.Plan, 'webhook_attempts');
      const headers = partitionsOf(explained.Plan, 'webhook_request_headers');
      console.log(
        `DELIVERY_WITH_ATTEMPTS ${generic ? 'generic' : 'custom'}: planning ${explained['Planning Time']} ms, execution ${explained['Execution Time']} ms, attempts read ${attempts.read.size}/${attempts.planned.size}, headers read ${headers.read.size}/${headers.planned.size}`,
      );
      expect(attempts.read.size, 'attempt partitions read').toBe(1);
      expect(headers.read.size, 'header partitions read').toBeLessThanOrEqual(1);
    }
  });

  it('closes interrupted attempts in the claim only for deliveries taken over from a worker that died, reading no attempt otherwise', async () => {
    const due = byDay.at(-2)!.slice(0, 20);
    // Attempt 2 of each still open: in flight as this release keeps it for half of them, started in webhook_attempts
    // itself as the previous release did for the other half (a rolling upgrade).
    const [inFlight, startedBefore] = [due.slice(0, 10), due.slice(10)];
    await db.query(`UPDATE webhook_deliveries SET status = 'RETRYING', next_attempt_at = now() - interval '1 second' WHERE id = ANY($1::text[])`, [due]);
    await db.query(`DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) AND number = 2`, [inFlight]);
    await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) SELECT i, 2, 'SCHEDULED', now() FROM unnest($1::text[]) i`, [inFlight]);
    await db.query(`UPDATE webhook_attempts SET finished = false WHERE delivery_id = ANY($1::text[]) AND number = 2`, [startedBefore]);
    try {
      // Released claims (no token left): nothing of theirs is open, and the claim reads no attempt partition at all.
      for (const generic of [false, true]) {
        const explained = await explain(CLAIM_DUE_DELIVERIES, ['plan-test', 200, [], 45_000, '{}', 32, 0], generic);
        const interrupted = nodesOf(explained.Plan).find((n) => n['Subplan Name'] === 'CTE interrupted_before')!;
        console.log(`CLAIM ${generic ? 'generic' : 'custom'}: planning ${explained['Planning Time']} ms, execution ${explained['Execution Time']} ms`);
        expect(readsOf(interrupted, 'webhook_attempts'), 'attempt reads closing interrupted attempts').toBe(0);
        expectNoPruningWhileRunning(explained.Plan, 'webhook_attempts', interrupted);
      }
      // Claims left behind by a worker that died: their open attempts are closed as interrupted by the claim that takes them over.
      await db.query(`UPDATE webhook_deliveries SET claim_token = 'dead-worker', claim_expires_at = now() - interval '1 second' WHERE id = ANY($1::text[])`, [due]);
      await db.query(CLAIM_DUE_DELIVERIES, ['plan-test', 200, [], 45_000, '{}', 32, 0]);
      const [closed] = await db.query(
        `SELECT count(*) FILTER (WHERE number = 2 AND finished AND error LIKE 'interrupted%')::int AS interrupted,
                count(*) FILTER (WHERE NOT finished AND number = 2)::int AS open,
                (SELECT count(*) FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[]) AND number = 2)::int AS in_flight
           FROM webhook_attempts WHERE delivery_id = ANY($1::text[])`,
        [due],
      );
      expect(closed).toEqual({ interrupted: due.length, open: 0, in_flight: 0 });
    } finally {
      await db.query(`UPDATE webhook_deliveries SET status = 'SUCCEEDED', next_attempt_at = NULL, claim_token = NULL, claim_expires_at = NULL WHERE id = ANY($1::text[])`, [due]);
      await db.query(`DELETE FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[])`, [due]);
      await db.query(`UPDATE webhook_attempts SET finished = true WHERE delivery_id = ANY($1::text[])`, [due]);
    }
  });

  // Seen in benchmark 1: joined with the attempts, whose partitions promise the planner one row, the
  // headers inserted by the same statement were read in full once per result (600 x 600 rows a batch).
  it("writes a batch of first attempts' results reading the headers it inserts once, not once per result", async () => {
    const written = byDay.at(-3)!.slice(0, 60);
    const rows = written.map((id) =>
      succeededResult(id, 1, 'https://hooks.example/plans', { headers: { 'x-platform-delivery': id }, event_type: 'app.purchased', shared: { 'x-plans': 'shared' } }),
    );
    const { hourly, minutely, endpointHourly } = rollUp([]);
    const explained = await explain(WRITE_RESULTS, [JSON.stringify(rows), 45_000, hourly, minutely, endpointHourly, ...recordAttemptsBounds(rows)], false);
    const readsOfInserted = nodesOf(explained.Plan)
      .filter((n) => n['Node Type'] === 'CTE Scan' && (n as PlanNode & { 'CTE Name'?: string })['CTE Name'] === 'shared')
      .map((n) => n['Actual Loops']);
    expect(readsOfInserted.length).toBeGreaterThan(0);
    expect(Math.max(...readsOfInserted), 'times the inserted headers were read').toBe(1);
  });

  // Seen in benchmark 1: each first attempt's result looked up its delivery's stored headers (an index descent
  // into a partition per result, a tenth of the write's reads), though the write inserts that row itself and
  // cannot see it.
  it("writes a batch of first attempts' results without looking up stored headers for any of them", async () => {
    const now = Date.now();
    const ids = Array.from({ length: 40 }, (_, k) => newWebhookId.delivery(now - k * 1000));
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT i, event_id, app_id, endpoint_id, event_type, purchase_id, 'PENDING', 1, 0, now(), now(), now() FROM webhook_deliveries, unnest($2::text[]) i WHERE id = $1`,
      [byDay[0]![0], ids],
    );
    await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) SELECT i, 1, 'SCHEDULED', now() FROM unnest($1::text[]) i`, [ids]);
    try {
      const rows = ids.map((id) =>
        succeededResult(id, 1, 'https://hooks.example/plans', { headers: { 'x-platform-delivery': id }, event_type: 'app.purchased', shared: { 'x-plans': 'shared' } }),
      );
      const { hourly, minutely, endpointHourly } = rollUp([]);
      for (const generic of [false, true]) {
        const explained = await explain(WRITE_RESULTS, [JSON.stringify(rows), 45_000, hourly, minutely, endpointHourly, ...recordAttemptsBounds(rows)], generic);
        const lookups = readsOf(explained.Plan, 'webhook_request_headers');
        expect(lookups, `stored headers looked up (${generic ? 'generic' : 'custom'} plan)`).toBe(0);
      }
      // And written as before: every attempt finished with its delivery's shared headers stored once.
      await db.query(WRITE_RESULTS, [JSON.stringify(rows), 45_000, hourly, minutely, endpointHourly, ...recordAttemptsBounds(rows)]);
      const [written] = await db.query(
        `SELECT (SELECT count(*) FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) AND finished AND url IS NULL)::int AS finished,
                (SELECT count(*) FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[]))::int AS in_flight,
                (SELECT count(*) FROM webhook_request_headers WHERE delivery_id = ANY($1::text[]) AND url = 'https://hooks.example/plans')::int AS headers`,
        [ids],
      );
      expect(written).toEqual({ finished: ids.length, in_flight: 0, headers: ids.length });
    } finally {
      await db.query('DELETE FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[])', [ids]);
      await db.query('DELETE FROM webhook_request_headers WHERE delivery_id = ANY($1::text[])', [ids]);
      await db.query('DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::text[])', [ids]);
      await db.query('DELETE FROM webhook_deliveries WHERE id = ANY($1::text[])', [ids]);
    }
  });

  it('writes attempt results through the partitions of those deliveries alone', async () => {
    // Two days a week apart: two partitions, each holding some of the batch.
    const written = [...byDay.at(-2)!.slice(0, 25), ...byDay.at(-9)!.slice(0, 25)];
    const rows = written.map((id) => succeededResult(id, 2, 'https://hooks.example/plans'));
    const { hourly, minutely, endpointHourly } = rollUp([]);
    // Attempt 2 of each in flight, as a result's write finds it (each EXPLAIN ANALYZE below is rolled back).
    await db.query(`DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) AND number = 2`, [written]);
    await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) SELECT i, 2, 'SCHEDULED', now() FROM unnest($1::text[]) i`, [written]);
    try {
      for (const generic of [false, true]) {
        const explained = await explain(WRITE_RESULTS, [JSON.stringify(rows), 45_000, hourly, minutely, endpointHourly, ...recordAttemptsBounds(rows)], generic);
        const attempts = partitionsOf(explained.Plan, 'webhook_attempts');
        const headers = partitionsOf(explained.Plan, 'webhook_request_headers');
        console.log(
          `WRITE_RESULTS ${generic ? 'generic' : 'custom'}: planning ${explained['Planning Time']} ms, execution ${explained['Execution Time']} ms, attempts read ${attempts.read.size}/${attempts.planned.size}, headers read ${headers.read.size}/${headers.planned.size}`,
        );
        expect(attempts.read.size, 'attempt partitions read').toBeLessThanOrEqual(2);
        expect(headers.read.size, 'header partitions read').toBeLessThanOrEqual(2);
        expectNoPruningWhileRunning(explained.Plan, 'webhook_attempts');
        expectNoPruningWhileRunning(explained.Plan, 'webhook_request_headers');
      }
    } finally {
      await db.query(`DELETE FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[])`, [written]);
      await db.query(
        `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished) SELECT i, 2, 'SCHEDULED', now(), 12, 200, true FROM unnest($1::text[]) i`,
        [written],
      );
    }
  });

  it('writes late outcomes in place of interrupted records through the partitions of those deliveries alone', async () => {
    const late = [...byDay.at(-2)!.slice(40, 50), ...byDay.at(-9)!.slice(40, 50)];
    const rows = late.map((id) => succeededResult(id, 2, 'https://hooks.example/plans'));
    // Attempt 2 of each closed as interrupted (taken over) before its result's write.
    await db.query(`UPDATE webhook_attempts SET status_code = NULL, error = $2 WHERE delivery_id = ANY($1::text[]) AND number = 2`, [late, INTERRUPTED]);
    try {
      for (const generic of [false, true]) {
        const explained = await explain(RECORD_LATE_OUTCOMES, [JSON.stringify(rows), ...recordAttemptsBounds(rows)], generic);
        expect(partitionsOf(explained.Plan, 'webhook_attempts').read.size, 'attempt partitions read').toBeLessThanOrEqual(2);
        expectNoPruningWhileRunning(explained.Plan, 'webhook_attempts');
      }
      const [{ replaced }] = await db.query(RECORD_LATE_OUTCOMES, [JSON.stringify(rows), ...recordAttemptsBounds(rows)]);
      expect(replaced).toBe(late.length);
      // An outcome is never written over: asked again, nothing is replaced.
      const [{ replaced: again }] = await db.query(RECORD_LATE_OUTCOMES, [JSON.stringify(rows), ...recordAttemptsBounds(rows)]);
      expect(again).toBe(0);
    } finally {
      await db.query(`UPDATE webhook_attempts SET status_code = 200, error = NULL WHERE delivery_id = ANY($1::text[]) AND number = 2`, [late]);
    }
  });

  it('hands back the claims of attempts in flight at shutdown without pruning partitions while it runs', async () => {
    const handed = [...byDay.at(-2)!.slice(30, 40), ...byDay.at(-9)!.slice(30, 40)];
    await db.query(`UPDATE webhook_deliveries SET status = 'RETRYING', claim_token = 'leaving', claim_expires_at = now() + interval '1 minute' WHERE id = ANY($1::text[])`, [
      handed,
    ]);
    // Attempt 2 of each in flight (webhook_open_attempts).
    await db.query(`DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) AND number = 2`, [handed]);
    await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) SELECT i, 2, 'SCHEDULED', now() FROM unnest($1::text[]) i`, [handed]);
    try {
      const claims = handed.map((id) => ({ id, claim_token: 'leaving', number: 2 }));
      for (const generic of [false, true]) {
        const explained = await explain(HAND_BACK, [JSON.stringify(claims)], generic);
        console.log(`HAND_BACK ${generic ? 'generic' : 'custom'}: planning ${explained['Planning Time']} ms, execution ${explained['Execution Time']} ms`);
        expect(prunedWhileRunning(explained.Plan, 'webhook_attempts'), 'attempt partitions pruned while it ran').toEqual([]);
        expect(partitionsOf(explained.Plan, 'webhook_attempts').read.size, 'attempt partitions read').toBeLessThanOrEqual(2);
      }
      // And it hands them back: claims released, the attempts in flight closed as interrupted.
      const [{ closed }] = await db.query(HAND_BACK, [JSON.stringify(claims)]);
      expect(closed).toBe(handed.length);
      const [after] = await db.query(
        `SELECT (SELECT count(*) FROM webhook_deliveries WHERE id = ANY($1::text[]) AND claim_token IS NULL)::int AS released,
                (SELECT count(*) FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) AND number = 2 AND finished AND error LIKE 'interrupted%')::int AS interrupted,
                (SELECT count(*) FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[]))::int AS in_flight`,
        [handed],
      );
      expect(after).toEqual({ released: handed.length, interrupted: handed.length, in_flight: 0 });
    } finally {
      await db.query(`UPDATE webhook_deliveries SET status = 'SUCCEEDED', claim_token = NULL, claim_expires_at = NULL WHERE id = ANY($1::text[])`, [handed]);
      await db.query(`DELETE FROM webhook_open_attempts WHERE delivery_id = ANY($1::text[])`, [handed]);
      await db.query(`UPDATE webhook_attempts SET finished = true, error = NULL WHERE delivery_id = ANY($1::text[])`, [handed]);
    }
  });
  // Seen in benchmark 1 (one transaction per event, work CPU 1.22x): the attempts in flight are inserted and deleted once
  // per attempt, so between two vacuums their table spans pages of dead rows, and a join read all of them per result batch.
  it('reads the attempts in flight by key, however many dead rows their table spans', async () => {
    const inFlight = byDay.at(-1)!.slice(0, 40);
    await db.query('ALTER TABLE webhook_open_attempts SET (autovacuum_enabled = false)');
    // 20,000 attempts started and ended: dead rows, about 200 pages of them, then the 40 in flight now.
    await db.query(`INSERT INTO webhook_open_attempts SELECT 'dlv_dead' || i, 1, 'SCHEDULED', now() FROM generate_series(1, 20000) i`);
    await db.query(`DELETE FROM webhook_open_attempts WHERE delivery_id LIKE 'dlv_dead%'`);
    await db.query(`DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) AND number = 2`, [inFlight]);
    await db.query(`INSERT INTO webhook_open_attempts (delivery_id, number, trigger, started_at) SELECT i, 2, 'SCHEDULED', now() FROM unnest($1::text[]) i`, [inFlight]);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'RETRYING', claim_token = 'held', claim_expires_at = now() - interval '1 second', next_attempt_at = now() WHERE id = ANY($1::text[])`,
      [inFlight],
    );
    try {
      const rows = inFlight.map((id) => succeededResult(id, 2, 'https://hooks.example/plans'));
      const { hourly, minutely, endpointHourly } = rollUp([]);
      const statements: [string, string, unknown[]][] = [
        ['WRITE_RESULTS', WRITE_RESULTS, [JSON.stringify(rows), 45_000, hourly, minutely, endpointHourly, ...recordAttemptsBounds(rows)]],
        ['CLAIM_DUE_DELIVERIES (taking them over)', CLAIM_DUE_DELIVERIES, ['plan-test', 200, [], 45_000, '{}', 32, 0]],
        ['HAND_BACK', HAND_BACK, [JSON.stringify(inFlight.map((id) => ({ id, claim_token: 'held', number: 2 })))]],
        ['ATTEMPTS_OF_DELIVERIES', ATTEMPTS_OF_DELIVERIES, [inFlight]],
        ['DELIVERY_WITH_ATTEMPTS', DELIVERY_WITH_ATTEMPTS, [inFlight[0]]],
      ];
      for (const [name, statement, params] of statements) {
        for (const generic of [false, true]) {
          const plan = (await explain(statement, params, generic)).Plan;
          const scans = nodesOf(plan).filter((n) => n['Relation Name'] === 'webhook_open_attempts' && n['Node Type'] !== 'ModifyTable');
          expect(scans.length, `${name}: reads of the attempts in flight`).toBeGreaterThan(0);
          expect(
            scans.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Node Type']),
            `${name} (${generic ? 'generic' : 'custom'} plan): whole reads of the attempts in flight`,
          ).toEqual([]);
        }
      }
    } finally {
      await db.query('DELETE FROM webhook_open_attempts');
      await db.query('ALTER TABLE webhook_open_attempts RESET (autovacuum_enabled)');
      await db.query(
        `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished) SELECT i, 2, 'SCHEDULED', now(), 12, 200, true FROM unnest($1::text[]) i`,
        [inFlight],
      );
      await db.query(`UPDATE webhook_deliveries SET status = 'SUCCEEDED', claim_token = NULL, claim_expires_at = NULL, next_attempt_at = NULL WHERE id = ANY($1::text[])`, [
        inFlight,
      ]);
    }
  });
  // The recovery pass runs every 15 s in every worker. It read every attempt partition of the history whole to find
  // the attempts the previous release left open in webhook_attempts (it started them there and wrote their outcome
  // over them), which this release never does: a partial index on the open ones finds them instead.
  it('finds the attempts the previous release left open through an index built partition by partition, reading no attempt partition whole', async () => {
    const indexed = async () => (await db.query(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'idx_webhook_attempts_open'::regclass`))[0].n as number;
    const valid = async () => (await db.query(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = 'idx_webhook_attempts_open'::regclass`))[0].valid as boolean;
    // As after an upgrade: not there yet, and a starting process builds it on the populated partitions.
    await db.query('DROP INDEX idx_webhook_attempts_open');
    expect(await buildConcurrentIndexes(db)).toEqual(['idx_webhook_attempts_open']);
    const partitions = await listPartitions(db, ATTEMPT_PARTITIONS);
    expect(partitions.length).toBeGreaterThan(9);
    expect(await indexed()).toBe(partitions.length);
    expect(await valid()).toBe(true);
    // A partition made later comes with it.
    const later = await ensurePartitions(db, ATTEMPT_PARTITIONS, Date.now() + 60 * DAY, Date.now() + 61 * DAY);
    expect(later).toHaveLength(1);
    expect(await indexed()).toBe(partitions.length + 1);
    expect(await valid()).toBe(true);

    // A previous-release worker died in the third attempt of a delivery from seven weeks ago.
    const abandoned = byDay[5]![0]!;
    await db.query(`INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished) VALUES ($1, 3, 'SCHEDULED', now() - interval '10 minutes', false)`, [
      abandoned,
    ]);
    try {
      for (const generic of [false, true]) {
        const plan = (await explain(CLOSE_ABANDONED_ATTEMPTS, [45_000], generic)).Plan;
        const wholeReads = nodesOf(plan)
          .filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name']?.startsWith('webhook_attempts_'))
          .filter((n) => (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0) > 0)
          .map((n) => n['Relation Name']);
        expect(wholeReads, `the recovery pass (${generic ? 'generic' : 'custom'} plan): attempt partitions read whole`).toEqual([]);
      }
      const [{ closed }] = await db.query(CLOSE_ABANDONED_ATTEMPTS, [45_000]);
      expect(closed).toBe(1);
      const [attempt] = await db.query(`SELECT finished, error FROM webhook_attempts WHERE delivery_id = $1 AND number = 3`, [abandoned]);
      expect(attempt).toMatchObject({ finished: true, error: expect.stringMatching(/^interrupted/) });
    } finally {
      await db.query(`DELETE FROM webhook_attempts WHERE delivery_id = $1 AND number = 3`, [abandoned]);
      for (const name of later) await db.query(`DROP TABLE ${name}`);
    }
  });
});
