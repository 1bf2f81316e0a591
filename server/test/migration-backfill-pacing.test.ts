import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeliveryEndpointBackfill1796000028500 } from '../src/platform/migrations/1796000028500-DeliveryEndpointBackfill.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { createTestDatabase, migratedDataSource, migrationIndex, withClient } from './helpers/database.js';

const APP = 'app_01KPACEDBACKFILL000000000';
const ENDPOINT = `ep_${APP.slice('app_'.length)}`;
/** Eight batches of the backfill's 5,000 and a part: enough walk for a crash to land in the middle of it. */
const HISTORY = 42_000;

/** A database at the schema just before the backfill, with HISTORY deliveries recorded before endpoints (so none has one yet). */
async function historyBeforeBackfill(): Promise<string> {
  const url = await createTestDatabase();
  const before = await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex('WebhookEndpoints1796000028000')));
  try {
    await before.query(
      `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
       VALUES ($1, 'dev_owner', 'Paced', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', 'https://hooks.example.com/paced', 'APPROVED', now(), now())`,
      [APP],
    );
    await before.query(
      `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at)
       SELECT 'dlv_01HPACE' || lpad(i::text, 19, '0'), 'evt_01HPACE' || lpad(i::text, 19, '0'), $1, 'app.purchased', 'APP-1700000000000-PACE' || i, 'SUCCEEDED', 1, 1, NULL, now(), now()
         FROM generate_series(1, ${HISTORY}) i`,
      [APP],
    );
  } finally {
    await before.destroy();
  }
  // The expand (endpoints made, the column added), not the backfill.
  const expanded = await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex('DeliveryEndpointBackfill1796000028500')));
  await expanded.destroy();
  return url;
}

const filled = (client: pg.Client) => client.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [ENDPOINT]).then((r) => r.rows[0]!.n);

describe('the endpoints backfill, paced', () => {
  const previousDuty = process.env.MIGRATION_BACKFILL_DUTY_PERCENT;
  afterEach(() => {
    if (previousDuty === undefined) delete process.env.MIGRATION_BACKFILL_DUTY_PERCENT;
    else process.env.MIGRATION_BACKFILL_DUTY_PERCENT = previousDuty;
  });

  it('works a fifth of its time at 20%: its wall time is at least five times the time its statements took, and every delivery gets its endpoint', async () => {
    const url = await historyBeforeBackfill();
    const dataSource = await migratedDataSource(url, []);
    const runner = dataSource.createQueryRunner();
    try {
      // Each statement the backfill makes, timed here, around the real query runner: its work as the database saw it.
      const statementsMs: number[] = [];
      const query = runner.query.bind(runner);
      runner.query = (async (...args: Parameters<typeof query>) => {
        const started = performance.now();
        try {
          return await query(...args);
        } finally {
          statementsMs.push(performance.now() - started);
        }
      }) as typeof runner.query;

      const started = performance.now();
      await new DeliveryEndpointBackfill1796000028500(20).up(runner);
      const wallMs = performance.now() - started;

      // Nine batches (eight of 5,000, then the rest), two statements each.
      expect(statementsMs).toHaveLength(18);
      // Every batch but the last is followed by a rest of four times its time (a timer may fire a millisecond early).
      const restedAfterMs = statementsMs.slice(0, -2).reduce((sum, ms) => sum + ms, 0);
      expect(wallMs).toBeGreaterThanOrEqual(5 * restedAfterMs - 8);
      expect(await withClient(url, filled)).toBe(HISTORY);
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
  }, 180_000);

  it('resumes after its connection dies mid-walk: the batches committed stay, the next start fills the rest and records the migration once', async () => {
    const url = await historyBeforeBackfill();
    // Slow enough that the walk is caught between its first batches and its last.
    process.env.MIGRATION_BACKFILL_DUTY_PERCENT = '10';
    const migrating = migratedDataSource(url, MIGRATIONS).then(
      () => 'finished',
      (error: unknown) => String(error),
    );
    const filledAtCrash = await withClient(url, async (client) => {
      const n = await vi.waitFor(
        async () => {
          const sofar = await filled(client);
          if (sofar < 10_000) throw new Error(`${sofar} deliveries filled so far`);
          return sofar;
        },
        { timeout: 120_000, interval: 10 },
      );
      // As if the process or its database connection died: every other backend of this database is gone.
      await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
      return n;
    });
    // TypeORM reports the dead connection its own way (a terminated backend, or a released query runner): it did not finish.
    expect(await migrating).not.toBe('finished');
    const afterCrash = await withClient(url, filled);
    // Whole batches of 5,000 stayed, and the walk had not reached the end.
    expect(afterCrash % 5_000).toBe(0);
    expect(afterCrash).toBeGreaterThanOrEqual(filledAtCrash);
    expect(afterCrash).toBeLessThan(HISTORY);

    process.env.MIGRATION_BACKFILL_DUTY_PERCENT = '100';
    const again = await migratedDataSource(url, MIGRATIONS);
    await again.destroy();
    await withClient(url, async (client) => {
      expect(await filled(client)).toBe(HISTORY);
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM schema_migrations WHERE name = 'DeliveryEndpointBackfill1796000028500'`);
      expect(rows).toEqual([{ n: 1 }]);
    });
  }, 180_000);
});
