import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * The Webhook Logs' app + status filter, planned from what each app's deliveries really are. Without it
 * PostgreSQL multiplies the share of the app by the share of the status, as if they were independent, but an
 * app's deliveries are mostly of one status (a dead endpoint's fail, a healthy one's succeed): for an app with
 * 3,333 FAILED deliveries in 1,000,000 it expected 500, chose to read them all (a bitmap scan and a sort) for a
 * page of 51, and read 3,333 heap pages where the index, newest first, stops after 51. The most common (app,
 * status) pairs are kept with the table's statistics (each ANALYZE, autovacuum's too, renews them).
 * Catalog-only: CREATE STATISTICS and ANALYZE take a lock that writes do not wait for, and ANALYZE reads a
 * fixed sample (30,000 rows), not the history.
 */
export class DeliveryLogStatistics1796000031500 implements MigrationInterface {
  name = 'DeliveryLogStatistics1796000031500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`CREATE STATISTICS "stat_webhook_deliveries_app_status" (mcv) ON "app_id", "status" FROM "webhook_deliveries"`]);
    await queryRunner.query(`ANALYZE "webhook_deliveries"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`DROP STATISTICS "stat_webhook_deliveries_app_status"`]);
  }
}
