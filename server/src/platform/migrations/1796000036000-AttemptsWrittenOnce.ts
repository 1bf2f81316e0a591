import type { MigrationInterface, QueryRunner } from 'typeorm';
import { listPartitions, type TimePartitionedTable } from '../time-partitions.js';
import { withShortLocks } from './short-locks.js';

/** The attempts table as it is when this migration is made (the storage options are this migration's to set). */
const ATTEMPTS: TimePartitionedTable = { table: 'webhook_attempts', keyColumn: 'delivery_id', idPrefix: 'dlv_' };

/** `ALTER TABLE ... SET (fillfactor = n)` for every partition of webhook_attempts as they are now, the default one included. */
async function setFillfactor(queryRunner: QueryRunner, fillfactor: number): Promise<void> {
  const partitions = await listPartitions(queryRunner, ATTEMPTS);
  await withShortLocks(
    queryRunner,
    partitions.map((partition) => `ALTER TABLE "${partition.name}" SET (fillfactor = ${fillfactor})`),
  );
}

/**
 * An attempt is recorded once, whole, when it ends: while it is in flight its started row is kept in
 * webhook_open_attempts, a small table of the attempts in flight, and the result's write moves it into
 * webhook_attempts with its outcome (delivery/sql-fragments.ts START_ATTEMPTS, RECORD_ATTEMPTS). So the attempts'
 * pages need no room for the outcome written over the started row: fillfactor 100 instead of 70, about 220 bytes of
 * every delivery with three attempts (BENCHMARKS.md, benchmark 4).
 *
 * Expand only. A new table, and each partition's fillfactor, which changes only the catalog (SHARE UPDATE EXCLUSIVE,
 * which writes do not wait for; pages take it as they are filled). The previous release's workers go on starting
 * attempts in webhook_attempts and updating them there, beside this one's: this release closes those rows where they
 * are (a takeover of its claims, the recovery pass) and its reads show both; the previous release's log does not show
 * this release's attempts while they are in flight, only once recorded.
 */
export class AttemptsWrittenOnce1796000036000 implements MigrationInterface {
  name = 'AttemptsWrittenOnce1796000036000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_open_attempts" ("delivery_id" text NOT NULL, "number" integer NOT NULL, "trigger" text NOT NULL,
        "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_webhook_open_attempts" PRIMARY KEY ("delivery_id", "number"))`,
    );
    await setFillfactor(queryRunner, 100);
  }

  /**
   * The attempts in flight go back to webhook_attempts as started rows, where the previous release looks for them
   * (its result write updates them, its takeover closes them), in the same transaction that drops their table.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`LOCK TABLE "webhook_open_attempts" IN ACCESS EXCLUSIVE MODE`]);
    await queryRunner.query(
      `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
       SELECT delivery_id, number, trigger, started_at, false FROM webhook_open_attempts
       ON CONFLICT (delivery_id, number) DO NOTHING`,
    );
    await queryRunner.query(`DROP TABLE "webhook_open_attempts"`);
    await setFillfactor(queryRunner, 70);
  }
}
