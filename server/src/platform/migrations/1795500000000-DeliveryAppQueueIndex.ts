import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The queue per app, by due time: while an app's destination is saturated (all its slots hang), the
 * engine finds other apps' due deliveries app by app instead of walking the saturated app's backlog in
 * time order. Partial, so a delivery leaves it when it settles (its next attempt becomes null); the
 * predicate differs from the due index's on purpose (see the entity).
 * On a large existing table, build it by hand first with CREATE INDEX CONCURRENTLY (same name and
 * definition) to avoid holding writes while it builds; this migration then finds it there.
 */
export class DeliveryAppQueueIndex1795500000000 implements MigrationInterface {
  name = 'DeliveryAppQueueIndex1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_webhook_deliveries_app_queue" ON "webhook_deliveries"  ("app_id", "next_attempt_at") WHERE next_attempt_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_app_queue"`);
  }
}
