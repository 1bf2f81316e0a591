import { describe, expect, it } from 'vitest';
import {
  CLAIM_DUE_DELIVERIES,
  CLAIM_DUE_DELIVERIES_PAST_SATURATED_ENDPOINTS,
  NEXT_DUE,
  NEXT_DUE_PAST_SATURATED_ENDPOINTS,
} from '../src/modules/webhooks/delivery/delivery-queries.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Loops': number;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
/** How many times a plan read one endpoint's queue (endpoint_id = …; the loose scan that lists the endpoints steps with endpoint_id > …). */
const endpointQueueReads = (plan: PlanNode) =>
  nodesOf(plan)
    .filter((node) => node['Index Name'] === 'idx_webhook_deliveries_endpoint_queue' && /endpoint_id = /.test(node['Index Cond'] ?? ''))
    .reduce((sum, node) => sum + node['Actual Loops'], 0);
/** Every row each step of a plan produced or read and dropped, loops included: the work it did. */
const rowsVisited = (plan: PlanNode) => nodesOf(plan).reduce((sum, node) => sum + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'], 0);

describe('claiming due deliveries', () => {
  // A queue's statistics are stale by nature: a burst of due deliveries arrives between two ANALYZEs.
  // Planned for the handful of rows the statistics promised, the claim once re-ranked every candidate
  // for each pending delivery (a nested loop): 300 ms per claim, retries a second late (benchmark 3).
  it('ranks the candidates once and locks rows by key, however stale the statistics', async () => {
    const plaza = await startTestPlaza();
    try {
      const developer = await plaza.signIn('claims@studio.test');
      const receiver = await WebhookReceiver.start();
      const app = await submitApp(developer, { webhookUrl: receiver.url() });
      const first = await emitEvent(plaza, app.id);
      await waitForDelivery(developer, first.id, isFinal);
      const db = plaza.services.db;
      await db.query('ANALYZE webhook_deliveries');

      // 1,000 deliveries due in an hour: out of the worker's reach, within the claim's look-ahead below.
      await db.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         SELECT 'whd_plan_' || n, event_id, app_id, event_type, purchase_id, 'PENDING', 0, 0, now() + interval '1 hour' + n * interval '1 ms', now(), now()
           FROM webhook_deliveries, generate_series(1, 1000) AS n WHERE id = $1`,
        [first.id],
      );

      const runner = db.createQueryRunner();
      await runner.startTransaction();
      try {
        const [
          {
            'QUERY PLAN': [explained],
          },
        ] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${CLAIM_DUE_DELIVERIES}`, ['plan-test', 200, [], 45_000, '{}', 32, 2 * 3600_000]);
        const nodes = nodesOf(explained.Plan as PlanNode);
        expect(explained.Plan['Actual Rows']).toBe(32); // one app: its 32 slots
        const windows = nodes.filter((node) => node['Node Type'] === 'WindowAgg');
        expect(windows.length).toBeGreaterThan(0);
        for (const window of windows) expect(window['Actual Loops'], 'the candidates are ranked once').toBe(1);
        // No step may look at more rows than the candidates' list (4 x 200) per pending delivery.
        expect(rowsVisited(explained.Plan)).toBeLessThan(20_000);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      await receiver.close();
    } finally {
      await plaza.stop();
    }
  });

  // A destination that hangs holds its app's slots until its attempts time out, and events for that app
  // keep arriving: its due backlog grows. In time order every claim (and every "when is the next one
  // due?") stepped over that whole backlog to reach other apps' deliveries: 20 ms per claim at 50,000.
  it("steps over a saturated endpoint's backlog instead of walking it, in the claim and in the next-due question", async () => {
    const plaza = await startTestPlaza();
    try {
      const developer = await plaza.signIn('backlog-plan@studio.test');
      const receiver = await WebhookReceiver.start();
      const [saturated, other] = [await submitApp(developer, { webhookUrl: receiver.url() }), await submitApp(developer, { webhookUrl: receiver.url() })];
      const seeds = [await emitEvent(plaza, saturated.id), await emitEvent(plaza, other.id)] as const;
      for (const seed of seeds) await waitForDelivery(developer, seed.id, isFinal);
      const db = plaza.services.db;
      // Out of the worker's reach (due in an hour), within the statements' look-ahead below: 20,000 for
      // the saturated app, then 5 for the other, due after all of them.
      const queue = (seed: string, count: number, from: string) =>
        db.query(
          `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
           SELECT 'whd_backlog_' || app_id || '_' || n, event_id, app_id, event_type, purchase_id, 'PENDING', 0, 0, now() + $3::interval + n * interval '1 ms', now(), now()
             FROM webhook_deliveries, generate_series(1, $2::int) AS n WHERE id = $1`,
          [seed, count, from],
        );
      await queue(seeds[0].id, 20_000, '1 hour');
      await queue(seeds[1].id, 5, '90 minutes');
      // A backlog builds over minutes, and autovacuum analyzes a table that grew a tenth: statistics that know it.
      await db.query('ANALYZE webhook_deliveries, webhook_events, webhook_attempts');

      const explain = async (statement: string, params: unknown[]) => {
        const runner = db.createQueryRunner();
        await runner.startTransaction();
        try {
          const [
            {
              'QUERY PLAN': [explained],
            },
          ] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params);
          return explained.Plan as PlanNode;
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      };
      // Slots are per endpoint: the saturated app's one endpoint is full here.
      const saturatedNow = [seeds[0].endpointId];
      const inFlight = JSON.stringify({ [seeds[0].endpointId]: 32 });
      const claimParams = ['plan-test', 200, saturatedNow, 45_000, inFlight, 32, 2 * 3600_000];

      const pastSaturated = await explain(CLAIM_DUE_DELIVERIES_PAST_SATURATED_ENDPOINTS, claimParams);
      expect(pastSaturated['Actual Rows'], "the other app's five").toBe(5);
      expect(rowsVisited(pastSaturated)).toBeLessThan(500);
      // The statement in time order finds the same five, by walking the backlog: what the saturated path is for.
      const inTimeOrder = await explain(CLAIM_DUE_DELIVERIES, claimParams);
      expect(inTimeOrder['Actual Rows']).toBe(5);
      expect(rowsVisited(inTimeOrder)).toBeGreaterThan(20_000);

      const nextDue = await explain(NEXT_DUE_PAST_SATURATED_ENDPOINTS, [saturatedNow, 50]);
      expect(rowsVisited(nextDue)).toBeLessThan(100);
      expect(rowsVisited(await explain(NEXT_DUE, [saturatedNow, 50]))).toBeGreaterThan(20_000);
      // And it answers the same: the other app's first delivery, about 90 minutes away.
      const [{ ms }] = await db.query(NEXT_DUE_PAST_SATURATED_ENDPOINTS, [saturatedNow, 50]);
      const [{ ms: inOrderMs }] = await db.query(NEXT_DUE, [saturatedNow, 50]);
      expect(Math.abs(ms - 90 * 60_000)).toBeLessThan(10_000);
      expect(Math.abs(ms - inOrderMs)).toBeLessThan(1000);

      // Endpoint by endpoint costs a probe per endpoint with queued work, so past 200 such endpoints time order is the
      // cheaper walk again: the same answer, and no endpoint's queue is read (the loose scan stops at the 201st).
      // Each of these apps has no endpoint row: the trigger names one for it, as for a deleted endpoint's.
      await db.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
         SELECT 'whd_other_' || n, event_id, 'app_other_' || lpad(n::text, 4, '0'), event_type, purchase_id, 'RETRYING', 1, 1, now() + interval '3 hours', now(), now()
           FROM webhook_deliveries, generate_series(1, 250) AS n WHERE id = $1`,
        [seeds[1].id],
      );
      await db.query('ANALYZE webhook_deliveries');
      const manyApps = await explain(CLAIM_DUE_DELIVERIES_PAST_SATURATED_ENDPOINTS, claimParams);
      expect(manyApps['Actual Rows']).toBe(5);
      expect(endpointQueueReads(pastSaturated), 'with two endpoints, each endpoint queue is read').toBeGreaterThan(0);
      expect(endpointQueueReads(manyApps), 'with 252 endpoints, none is').toBe(0);
      const [{ ms: manyAppsMs }] = await db.query(NEXT_DUE_PAST_SATURATED_ENDPOINTS, [saturatedNow, 50]);
      expect(Math.abs(manyAppsMs - 90 * 60_000)).toBeLessThan(10_000);
      await receiver.close();
    } finally {
      await plaza.stop();
    }
  });
});
