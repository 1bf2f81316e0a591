import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * Where a delivery's trace continues: the W3C traceparent of the span that recorded its event, so the
 * worker's attempts join the purchase's trace. Nullable without a default, so adding it changes the
 * catalog only (no row is rewritten, whatever the history) and costs no bytes while tracing is off; its
 * lock is taken within a second or tried again (short-locks.ts). The previous release neither writes nor
 * reads it.
 */
export class DeliveryTraceContext1796000031000 implements MigrationInterface {
  name = 'DeliveryTraceContext1796000031000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "webhook_deliveries" ADD "trace_parent" text`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "webhook_deliveries" DROP COLUMN "trace_parent"`]);
  }
}
