import type { MigrationInterface, QueryRunner } from 'typeorm';
import { logger } from '../logger.js';
import { pacedBatches } from './paced-batches.js';

/** Rows per transaction: each locks only its own rows, for some tens of milliseconds. */
const BATCH = 5_000;

/**
 * Fills webhook_deliveries.endpoint_id for the deliveries recorded before endpoints (backfill): each went
 * to its app's Webhook URL, the endpoint the previous migration made from it (`ep_` and the app's ULID).
 * Outside a transaction, in batches along the primary key, each its own transaction: a single UPDATE would
 * hold a million rows' locks (and the engine's result writes behind them) until it ended. Rows recorded
 * since the previous migration have it already (its trigger). Paced (paced-batches.ts): it rests between batches,
 * MIGRATION_BACKFILL_DUTY_PERCENT. A crash loses at most the batch in flight: the migration is not recorded, so
 * the next start walks again from the first key, and the rows filled already are passed over (endpoint_id set).
 */
export class DeliveryEndpointBackfill1796000028500 implements MigrationInterface {
  name = 'DeliveryEndpointBackfill1796000028500';
  transaction = false;

  /** `dutyPercent`: the setting's value unless given (a test's). */
  constructor(private readonly dutyPercent?: number) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    let after = '';
    const run = await pacedBatches(async () => {
      const [bound]: { id: string }[] = await queryRunner.query(`SELECT id FROM webhook_deliveries WHERE id > $1 ORDER BY id OFFSET ${BATCH - 1} LIMIT 1`, [after]);
      await queryRunner.query(
        `UPDATE webhook_deliveries SET endpoint_id = 'ep_' || substr(app_id, 5)
          WHERE id > $1 AND ($2::text IS NULL OR id <= $2) AND endpoint_id IS NULL`,
        [after, bound?.id ?? null],
      );
      if (!bound) return false;
      after = bound.id;
      return true;
    }, this.dutyPercent);
    logger.info({ migration: this.name, batches: run.batches, workSeconds: run.workMs / 1000, restSeconds: run.restMs / 1000 }, 'deliveries given their endpoint');
  }

  async down(): Promise<void> {
    // The column goes with the previous migration's undo.
  }
}
