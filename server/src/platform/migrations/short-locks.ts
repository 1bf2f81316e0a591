import { setTimeout as sleep } from 'node:timers/promises';
import type { QueryRunner } from 'typeorm';

/**
 * How long a schema change may wait for its table lock. While it waits, every write to the table queues behind it
 * (PostgreSQL grants locks in order), so this is also how long a purchase, a claim or a result write can be held
 * up by it: 200 ms keeps that a fifth of the second a migration may hold them, with room for the write's own work
 * on a busy machine, and is still many times the length of the previous release's ordinary transactions.
 */
const LOCK_WAIT = '200ms';
const LOCK_NOT_AVAILABLE = '55P03';
/** The pause before try n is 200 ms times n, capped here: long enough for a busy table's writers to drain, short enough to try again often. */
const MAX_PAUSE_MS = 1_000;

/**
 * Runs DDL `statements` inside the migration's transaction, each waiting at most LOCK_WAIT for its lock, and
 * tries again (up to `tries` times, a pause between) when another transaction held the table that long: an
 * ALTER TABLE waiting behind a long transaction would otherwise hold up every new delivery queued behind it.
 * The default 100 tries give a statement about two minutes in all (20 s waiting, 97 s of pauses), the patience
 * it had when it waited a whole second each try, so a migration still gets in behind the previous release's
 * traffic. A savepoint undoes the failed try only, so the statements before it stand.
 */
export async function withShortLocks(queryRunner: QueryRunner, statements: string[], tries = 100): Promise<void> {
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
        await sleep(Math.min(200 * attempt, MAX_PAUSE_MS));
      }
    }
  }
  await queryRunner.query(`SELECT set_config('lock_timeout', $1, true)`, [previous]);
}
