import type { QueryRunner } from 'typeorm';

/** How long a schema change may wait for its table lock; while it waits, every write to the table queues behind it. */
const LOCK_WAIT = '1s';
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Runs DDL `statements` inside the migration's transaction, each waiting at most LOCK_WAIT for its lock, and
 * tries again (up to `tries` times, a pause between) when another transaction held the table that long: an
 * ALTER TABLE waiting behind a long transaction would otherwise hold up every new delivery queued behind it.
 * A savepoint undoes the failed try only, so the statements before it stand.
 */
export async function withShortLocks(queryRunner: QueryRunner, statements: string[], tries = 30): Promise<void> {
  const [{ previous }]: [{ previous: string }] = await queryRunner.query(`SELECT current_setting('lock_timeout') AS previous`);
  await queryRunner.query(`SELECT set_config('lock_timeout', $1, true)`, [LOCK_WAIT]);
  for (const statement of statements) {
    for (let attempt = 1; ; attempt++) {
      await queryRunner.query('SAVEPOINT short_lock');
      try {
        await queryRunner.query(statement);
        await queryRunner.query('RELEASE SAVEPOINT short_lock');
        break;
      } catch (error) {
        await queryRunner.query('ROLLBACK TO SAVEPOINT short_lock');
        if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= tries) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }
  await queryRunner.query(`SELECT set_config('lock_timeout', $1, true)`, [previous]);
}
