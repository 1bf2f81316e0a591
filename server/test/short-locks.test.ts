import pg from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withShortLocks } from '../src/platform/migrations/short-locks.js';
import { createTestDatabase, migratedDataSource, withClient } from './helpers/database.js';

/** What a migration may hold up a write for. */
const MOST_HELD_MS = 1000;

let url: string;
let dataSource: DataSource;

/** Three connections of their own for `work`, each closed after it whatever `work` does. */
const withClients = <T>(work: (holder: pg.Client, other: pg.Client, observer: pg.Client) => Promise<T>): Promise<T> =>
  withClient(url, (holder) => withClient(url, (other) => withClient(url, (observer) => work(holder, other, observer))));

/** Resolves once some backend's statement matching `pattern` is waiting for a table lock. */
async function waitingOnLock(observer: pg.Client, pattern: string): Promise<void> {
  await expect
    .poll(
      async () =>
        (
          await observer.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ~* $1`, [
            pattern,
          ])
        ).rows[0]!.n,
      { timeout: 10_000, interval: 5 },
    )
    .toBeGreaterThan(0);
}

/** Runs `statements` through withShortLocks in a migration's transaction of its own. */
async function migrate(statements: string[], tries?: number): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    try {
      await withShortLocks(runner, statements, tries);
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    }
  } finally {
    await runner.release();
  }
}

const columns = async (client: pg.Client, table: string) =>
  (await client.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, [table])).rows.map(
    (r) => r.column_name,
  );

describe('a schema change waiting for its lock', () => {
  beforeAll(async () => {
    url = await createTestDatabase();
    dataSource = await migratedDataSource(url, []);
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('holds a write queued behind it well under a second, and gets its lock once the table is let go', async () => {
    await withClients(async (holder, writer, observer) => {
      await holder.query(`CREATE TABLE held (id int)`);
      // A transaction of the previous release, still open: its insert keeps the table in ROW EXCLUSIVE mode.
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO held VALUES (0)`);

      const altering = migrate([`ALTER TABLE held ADD "added" text`]);
      // The worst moment for a write: the ALTER has just joined the lock queue, so the insert queues behind it
      // and waits until the ALTER gives up its try.
      await waitingOnLock(observer, '^ALTER TABLE held');
      const started = performance.now();
      await writer.query(`INSERT INTO held VALUES (1)`);
      const waitedMs = performance.now() - started;

      // Let go only once the write has been measured: until then the ALTER is still trying.
      await holder.query('COMMIT');
      await altering;
      expect(waitedMs).toBeLessThan(MOST_HELD_MS / 2);
      expect(await columns(observer, 'held')).toEqual(['id', 'added']);
      expect((await observer.query(`SELECT id FROM held ORDER BY id`)).rows).toEqual([{ id: 0 }, { id: 1 }]);
    });
  });

  it('gives up with the lock error after its tries when the table is never let go, changing nothing', async () => {
    await withClients(async (holder, _, observer) => {
      await holder.query(`CREATE TABLE never_released (id int)`);
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE never_released IN ROW EXCLUSIVE MODE`);

      const started = performance.now();
      await expect(migrate([`ALTER TABLE never_released ADD "added" text`], 3)).rejects.toMatchObject({ code: '55P03' });
      // Three waits of the lock timeout and the two pauses between them (200 and 400 ms).
      expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 200 + 600 - 5);
      await holder.query('ROLLBACK');
      expect(await columns(observer, 'never_released')).toEqual(['id']);
    });
  });
});
