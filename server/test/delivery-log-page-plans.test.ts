import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { connectPlazaDatabase } from '../src/app/entities.js';
import { DeliveryLogService, logPageStatement, MERGED_LOG_APPS_AT_MOST } from '../src/modules/webhooks/delivery-log.service.js';
import type { WebhookDeliveryFilter } from '../src/modules/webhooks/dto/webhook-delivery-filter.input.js';
import { DeliveryStatus, WebhookEventType } from '../src/modules/webhooks/webhook.types.js';
import { readPage, type PageArgs } from '../src/platform/connection.js';
import { createTestDatabase } from './helpers/database.js';

/**
 * The Webhook Logs' pages on the indexes kept for them. One app's whole log (no status filter) on the one index
 * led by the app, (app_id, status, id): a page of each status merged newest first, on a history where one
 * status is rare and old and an app failed throughout. What a developer sees must be every delivery of the app
 * once, newest first, however paged. A purchase's deliveries by a hash index.
 */
const APPS = 100;
const PER_APP = 1_000;
const PAGE = 50;
const appId = (k: number) => `app_01KPAGES${String(k).padStart(17, '0')}`;
/** The app whose history is mostly SUCCEEDED, with a few FAILED long ago, some RETRYING and the newest PENDING. */
const MIXED = appId(0);
/** The app whose every delivery FAILED (a dead receiver's). */
const DEAD = appId(1);

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  /** Per loop, as 'Rows Removed by Filter' is. */
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
/** The rows the scans among `nodes` looked at, kept or not, over all their loops. */
const rowsExamined = (nodes: PlanNode[]) => nodes.reduce((sum, node) => sum + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'], 0);

describe("the Webhook Logs' pages on the indexes kept for them", () => {
  let db: DataSource;
  let log: DeliveryLogService;

  beforeAll(async () => {
    // Built from nothing, as a new install is: what only the previous release read by (the app and id index) is gone.
    db = await connectPlazaDatabase(await createTestDatabase(), 4);
    log = new DeliveryLogService(db);
    // Apps interleaved in time, as real traffic is. Ids are time-ordered as ULIDs are: the row number, zero-padded.
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT 'dlv_01KPAGES' || lpad(i::text, 18, '0'), 'evt_01KPAGES' || lpad(i::text, 18, '0'), a, 'ep_' || substr(a, 5),
              CASE WHEN i % 3 = 0 THEN 'app.installed' ELSE 'app.purchased' END, 'APP-1800000000000-P' || i / 3,
              CASE WHEN a = $3::text THEN 'FAILED'
                   WHEN a <> $4::text THEN 'SUCCEEDED'
                   WHEN n < 10 THEN 'FAILED'
                   WHEN n >= $2::int - 20 THEN 'PENDING'
                   WHEN n % 37 = 0 THEN 'RETRYING'
                   ELSE 'SUCCEEDED' END,
              1, 1, NULL, now(), now()
         FROM generate_series(0, $1::int * $2::int - 1) i,
              LATERAL (SELECT 'app_01KPAGES' || lpad((i % $1::int)::text, 17, '0') AS a, i / $1::int AS n) x`,
      [APPS, PER_APP, DEAD, MIXED],
    );
    await db.query('ANALYZE webhook_deliveries');
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
  });

  /** Every delivery id of `app`, newest first: what the log must show. */
  const everyIdOf = async (app: string) =>
    ((await db.query('SELECT id FROM webhook_deliveries WHERE app_id = $1 ORDER BY id DESC', [app])) as { id: string }[]).map((row) => row.id);

  /** Every delivery id `readable` reads under `filter`, paged forward from the newest and backward from the oldest, 50 at a time. */
  async function everyPage(readable: string[] | undefined, filter: WebhookDeliveryFilter): Promise<{ forward: string[]; backward: string[] }> {
    const forward: string[] = [];
    for (let after: string | null = null; ;) {
      const page = await log.list(readable, filter, { first: PAGE, after });
      forward.push(...page.edges.map((edge) => edge.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    const backward: string[] = [];
    for (let before: string | null = null; ;) {
      const page = await log.list(readable, filter, { last: PAGE, before });
      backward.unshift(...page.edges.map((edge) => edge.node.id));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    return { forward, backward };
  }

  it('has no btree on app and id, nor on purchase and id: a database built from nothing never keeps what only the previous release read by', async () => {
    const indexes: { indexname: string }[] = await db.query(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_deliveries' AND (indexdef LIKE '%(app_id, id)' OR indexdef LIKE '%(purchase_id, id)')`,
    );
    expect(indexes).toEqual([]);
  });

  it('reads at most a page of each app and status to show a page, whatever lies behind it, planned for its values or kept for any', async () => {
    // One app's log (an admin's or its developer's), and the log of a developer's three apps of the hundred together.
    const readers: { name: string; readable: string[] | undefined; filter: WebhookDeliveryFilter; apps: number }[] = [
      ...[MIXED, DEAD, appId(2)].map((app) => ({ name: app, readable: undefined, filter: { appId: app }, apps: 1 })),
      { name: 'three apps', readable: [MIXED, DEAD, appId(2)], filter: {}, apps: 3 },
      { name: 'three apps, FAILED', readable: [MIXED, DEAD, appId(2)], filter: { status: DeliveryStatus.FAILED }, apps: 3 },
    ];
    // One connection: a prepared statement and the plan mode are its own.
    const session = db.createQueryRunner();
    try {
      let prepared = 0;
      for (const planMode of ['force_custom_plan', 'force_generic_plan']) {
        await session.query(`SET plan_cache_mode = ${planMode}`);
        for (const args of [{ first: PAGE }, { last: PAGE }] satisfies PageArgs[]) {
          for (const reader of readers) {
            const statement = logPageStatement(reader.readable, reader.filter, readPage(args, ['string']))!;
            const name = `page_${(prepared += 1)}`;
            await session.query(`PREPARE ${name} AS ${statement.text}`);
            const [
              {
                'QUERY PLAN': [explained],
              },
            ] = await session.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${statement.values.map((value) => `'${String(value)}'`).join(', ')})`);
            // The scans of the table (a bitmap's index scan feeds its heap scan; a subquery scan reads no table).
            const tableScans = nodesOf(explained.Plan as PlanNode).filter((node) => /Scan/.test(node['Node Type']) && !/Subquery|Bitmap Index/.test(node['Node Type']));
            // 1,000 deliveries behind each app's page: each app and status's scan stops at the page and the one past it.
            const rangesRead = reader.apps * (reader.filter.status ? 1 : 4);
            expect(rowsExamined(tableScans), `${planMode} ${reader.name} ${JSON.stringify(args)}: ${JSON.stringify(tableScans)}`).toBeLessThanOrEqual(rangesRead * (PAGE + 1));
            expect(explained.Plan['Actual Rows']).toBe(PAGE + 1);
          }
        }
      }
    } finally {
      // The connection goes back to the pool as it came.
      await session.query('RESET plan_cache_mode; DEALLOCATE ALL');
      await session.release();
    }
  });

  it("pages through a developer's apps together, newest first, forward and backward, with and without a status", async () => {
    const mine = [MIXED, DEAD, appId(2)];
    for (const status of [undefined, DeliveryStatus.FAILED]) {
      const expected = (
        (await db.query(`SELECT id FROM webhook_deliveries WHERE app_id = ANY($1) AND ($2::text IS NULL OR status = $2) ORDER BY id DESC`, [mine, status ?? null])) as {
          id: string;
        }[]
      ).map((row) => row.id);
      const { forward, backward } = await everyPage(mine, status ? { status } : {});
      expect(forward).toEqual(expected);
      expect(backward).toEqual(expected);
    }
  }, 60_000);

  it(`walks the primary key for a developer with more than ${MERGED_LOG_APPS_AT_MOST} apps, as PostgreSQL plans it, and pages them right`, async () => {
    const many = Array.from({ length: MERGED_LOG_APPS_AT_MOST + 1 }, (_, k) => appId(k));
    expect(logPageStatement(many, {}, readPage({ first: PAGE }, ['string']))!.text).not.toContain('UNION ALL');
    const page = await log.list(many, {}, { first: PAGE });
    const expected = ((await db.query('SELECT id FROM webhook_deliveries WHERE app_id = ANY($1) ORDER BY id DESC LIMIT $2', [many, PAGE])) as { id: string }[]).map(
      (row) => row.id,
    );
    expect(page.edges.map((edge) => edge.node.id)).toEqual(expected);
  });

  it('pages through every delivery of the app once, newest first, forward and backward, rare and old statuses included', async () => {
    for (const app of [MIXED, DEAD]) {
      const expected = await everyIdOf(app);
      // As its developer (who owns another app too) and as an admin.
      expect((await everyPage([app, appId(2)], { appId: app })).forward).toEqual(expected);
      const { backward } = await everyPage(undefined, { appId: app });
      expect(backward).toEqual(expected);
    }
    // The oldest FAILED of the mostly healthy app are there, last; the newest PENDING first.
    const last = await log.list(undefined, { appId: MIXED }, { last: 10 });
    expect(last.edges.map((edge) => edge.node.status)).toEqual(Array(10).fill('FAILED'));
    const first = await log.list(undefined, { appId: MIXED }, { first: 20 });
    expect(first.edges.map((edge) => edge.node.status)).toEqual(Array(20).fill('PENDING'));
  }, 60_000);

  it('gives a developer with one app the same pages without naming it, and the filters still narrow them', async () => {
    const unnamed = await log.list([MIXED], {}, { first: PAGE });
    const named = await log.list([MIXED], { appId: MIXED }, { first: PAGE });
    expect(unnamed.edges.map((edge) => edge.node.id)).toEqual(named.edges.map((edge) => edge.node.id));
    expect(logPageStatement([MIXED], {}, readPage({ first: PAGE }, ['string']))!.text).toEqual(
      logPageStatement(undefined, { appId: MIXED }, readPage({ first: PAGE }, ['string']))!.text,
    );

    const installs = await log.list([MIXED], { event: WebhookEventType.APP_INSTALLED }, { first: PAGE });
    const expected = (
      (await db.query(`SELECT id FROM webhook_deliveries WHERE app_id = $1 AND event_type = 'app.installed' ORDER BY id DESC LIMIT $2`, [MIXED, PAGE])) as { id: string }[]
    ).map((row) => row.id);
    expect(installs.edges.map((edge) => edge.node.id)).toEqual(expected);
    // Another developer's app reads as empty.
    expect((await log.list([MIXED], { appId: DEAD }, { first: PAGE })).edges).toEqual([]);
  }, 60_000);

  it("finds a purchase's deliveries by its hash index, reading only them, newest first", async () => {
    // Deliveries 3k, 3k + 1 and 3k + 2 are one purchase's, each another app's.
    const purchase = 'APP-1800000000000-P4321';
    const statement = logPageStatement(undefined, { purchaseId: purchase }, readPage({ first: PAGE }, ['string']))!;
    const [
      {
        'QUERY PLAN': [explained],
      },
    ] = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
    const nodes = nodesOf(explained.Plan as PlanNode);
    expect(nodes.filter((node) => node['Index Name']).map((node) => node['Index Name'])).toEqual(['idx_webhook_deliveries_purchase_hash']);
    const tableScans = nodes.filter((node) => /Scan/.test(node['Node Type']) && !/Bitmap Index/.test(node['Node Type']));
    expect(rowsExamined(tableScans)).toBe(3);

    const page = await log.list(undefined, { purchaseId: purchase }, { first: PAGE });
    expect(page.edges.map((edge) => edge.node.id)).toEqual([4321 * 3 + 2, 4321 * 3 + 1, 4321 * 3].map((i) => `dlv_01KPAGES${String(i).padStart(18, '0')}`));
    // Only the reader's apps' among them.
    const mine = await log.list([appId((4321 * 3 + 1) % APPS)], { purchaseId: purchase }, { first: PAGE });
    expect(mine.edges.map((edge) => edge.node.id)).toEqual([`dlv_01KPAGES${String(4321 * 3 + 1).padStart(18, '0')}`]);
  });
});
