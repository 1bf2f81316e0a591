import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows per transaction: each locks only its own rows, for some tens of milliseconds. */
const BATCH = 5_000;

/**
 * Fills webhook_deliveries.endpoint_id for the deliveries recorded before endpoints (backfill): each went
 * to its app's Webhook URL, the endpoint the previous migration made from it (`ep_` and the app's ULID).
 * Outside a transaction, in batches along the primary key, each its own transaction: a single UPDATE would
 * hold a million rows' locks (and the engine's result writes behind them) until it ended. Rows recorded
 * since the previous migration have it already (its trigger).
 */
export class DeliveryEndpointBackfill1796000028500 implements MigrationInterface {
  name = 'DeliveryEndpointBackfill1796000028500';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    let after = '';
    for (;;) {
      const [bound]: { id: string }[] = await queryRunner.query(`SELECT id FROM webhook_deliveries WHERE id > $1 ORDER BY id OFFSET ${BATCH - 1} LIMIT 1`, [after]);
      await queryRunner.query(
        `UPDATE webhook_deliveries SET endpoint_id = 'ep_' || substr(app_id, 5)
          WHERE id > $1 AND ($2::text IS NULL OR id <= $2) AND endpoint_id IS NULL`,
        [after, bound?.id ?? null],
      );
      if (!bound) return;
      after = bound.id;
    }
  }

  async down(): Promise<void> {
    // The column goes with the previous migration's undo.
  }
}
