import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on each page for the next version of a row: a delivery is updated three or four times (claim,
 * result, retries) and an attempt twice (started, finished), mostly in columns no index covers, so
 * with free space PostgreSQL updates them in place (HOT) instead of writing every index again.
 * Measured on the throughput benchmark: about 3,400 -> 4,100 deliveries/s (70 beat 50 and 100).
 * Existing pages get the room as they are rewritten; new ones at once.
 */
export class DeliveryFillfactor1795400000000 implements MigrationInterface {
  name = 'DeliveryFillfactor1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" SET (fillfactor = 70)`);
    await queryRunner.query(`ALTER TABLE "webhook_attempts" SET (fillfactor = 70)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_attempts" RESET (fillfactor)`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" RESET (fillfactor)`);
  }
}
