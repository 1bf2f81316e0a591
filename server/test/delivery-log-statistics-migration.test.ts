import { afterAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';

const MINE = 'DeliveryLogStatistics1796000031500';
const APPS = 60;
const PER_APP = 500;
/** Apps whose every delivery failed (a dead endpoint's): a tenth of the apps, so a tenth of the deliveries. */
const FAILING_APPS = 6;
const appId = (k: number) => `app_01KSTATS${String(k).padStart(17, '0')}`;

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The log page's statement for app + status (delivery-log.service.ts list), as PostgreSQL plans it with its values. */
const PAGE = `SELECT d.* FROM webhook_deliveries d WHERE d.app_id = $1 AND d.status = $2 ORDER BY d.id DESC LIMIT 51`;

/** How many deliveries the plan of one page read from the table (rows out of its scans) and how many pages it touched. */
async function pageCost(db: DataSource, app: string, status: string) {
  const [
    {
      'QUERY PLAN': [explained],
    },
  ] = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${PAGE}`, [app, status]);
  const nodes = nodesOf(explained.Plan as PlanNode);
  const scan = nodes.find((n) => n['Node Type'].includes('Scan') && !n['Node Type'].startsWith('Bitmap Index'))!;
  return { rowsRead: scan['Actual Rows'], blocks: explained.Plan['Shared Hit Blocks'] + explained.Plan['Shared Read Blocks'], rows: explained.Plan['Actual Rows'] };
}

describe('migration 1796000031500 (the log’s statistics of app and status together) on a populated database', () => {
  let plaza: TestPlaza | undefined;

  afterAll(async () => {
    await plaza?.stop();
  });

  it('a page of one app’s FAILED deliveries reads that page, not every failed delivery of the app; the log reads the same; undone', async () => {
    const url = await createTestDatabase();
    const before = await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex(MINE)));
    // Apps interleaved in time, as real traffic is; the failing apps' deliveries all FAILED, the others' all SUCCEEDED.
    await before.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT 'dlv_01KSTATS' || lpad(i::text, 18, '0'), 'evt_01KSTATS' || lpad(i::text, 18, '0'), a, 'ep_' || substr(a, 5), 'app.purchased', 'APP-1800000000000-S' || i,
              CASE WHEN i % $1 < $2 THEN 'FAILED' ELSE 'SUCCEEDED' END, 1, 1, NULL, now(), now()
         FROM generate_series(0, $3 - 1) i, LATERAL (SELECT 'app_01KSTATS' || lpad((i % $1)::text, 17, '0') AS a) x`,
      [APPS, FAILING_APPS, APPS * PER_APP],
    );
    // As autovacuum leaves it: statistics of every column, taken before the migration.
    await before.query('ANALYZE webhook_deliveries');
    const failing = appId(0);
    const without = await pageCost(before, failing, 'FAILED');
    const pageBefore = await before.query(PAGE, [failing, 'FAILED']);
    await before.destroy();

    const after = await migratedDataSource(url, MIGRATIONS);
    try {
      const withStatistics = await pageCost(after, failing, 'FAILED');
      expect(withStatistics.rows).toBe(51);
      // The page's 51 and the one that says a next page exists, newest first on the index; without the statistics all 500.
      expect(without.rowsRead).toBe(PER_APP);
      expect(withStatistics.rowsRead).toBeLessThanOrEqual(51);
      expect(withStatistics.blocks).toBeLessThan(without.blocks / 4);
      // The healthy apps' pages stay one range scan, whatever the status asked.
      for (const status of ['SUCCEEDED', 'FAILED']) expect((await pageCost(after, appId(FAILING_APPS), status)).rowsRead).toBeLessThanOrEqual(51);
      expect(await after.query(PAGE, [failing, 'FAILED'])).toEqual(pageBefore);
    } finally {
      await after.destroy();
    }

    // Through the API, the same page.
    plaza = await startTestPlaza({ DATABASE_URL: url });
    const admin = await plaza.signIn(ADMIN_EMAIL);
    const page = await admin.ok<{ webhookDeliveries: { edges: { node: { id: string; status: string } }[] } }>(
      'query($appId: ID!) { webhookDeliveries(filter: { appId: $appId, status: FAILED }, first: 50) { edges { node { id status } } } }',
      { appId: failing },
    );
    expect(page.webhookDeliveries.edges.map((e) => e.node)).toEqual(pageBefore.slice(0, 50).map((d: { id: string }) => ({ id: d.id, status: 'FAILED' })));
    await plaza.stop();
    plaza = undefined;

    // Undone (with every later migration): the statistics object goes, nothing else changes.
    const undo = await migratedDataSource(url, MIGRATIONS);
    try {
      for (let i = migrationIndex(MINE); i < MIGRATIONS.length; i += 1) await undo.undoLastMigration({ transaction: 'each' });
      expect(await undo.query(`SELECT count(*)::int AS n FROM pg_statistic_ext WHERE stxname = 'stat_webhook_deliveries_app_status'`)).toEqual([{ n: 0 }]);
      expect(await undo.query('SELECT count(*)::int AS n FROM webhook_deliveries')).toEqual([{ n: APPS * PER_APP }]);
    } finally {
      await undo.destroy();
    }
    // Two migrations of a populated database and a Plaza's start: 26 s beside other work on two cores, past vitest's 30 s default under more.
  }, 120_000);
});
