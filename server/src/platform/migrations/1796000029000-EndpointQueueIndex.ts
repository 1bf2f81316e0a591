import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine's per-endpoint queue (endpoint_id, next_attempt_at), as the per-app one it replaces: slots are kept
 * per endpoint, so a hanging endpoint cannot hold back another endpoint of its app. Built CONCURRENTLY, outside a
 * transaction: a plain CREATE INDEX would hold every new delivery and result write for as long as the build
 * takes on the whole history. An index left invalid by a build that failed is dropped and built again.
 */
export class EndpointQueueIndex1796000029000 implements MigrationInterface {
  name = 'EndpointQueueIndex1796000029000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "idx_webhook_deliveries_endpoint_queue"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "idx_webhook_deliveries_endpoint_queue" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at") WHERE next_attempt_at IS NOT NULL`,
    );
  }

  // Undone in a transaction (TypeORM runs every undo in one), so not CONCURRENTLY: a drop is quick.
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_webhook_deliveries_endpoint_queue"`);
  }
}
