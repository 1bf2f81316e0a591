import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failure alerts, automatic disable and bulk recovery: each app's webhook state, one row
 * per app with a run of failed attempts, why a delivery was held, and which deliveries recovery queued.
 * Every added column has a default or is nullable, so existing rows need no rewrite.
 */
export class WebhookHealth1796000013000 implements MigrationInterface {
  name = 'WebhookHealth1796000013000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "apps" ADD "webhook_state" text NOT NULL DEFAULT 'ENABLED'`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "held_reason" text`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "recovering" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE TABLE "webhook_health" ("app_id" text NOT NULL, "failing_since" TIMESTAMP WITH TIME ZONE, "last_failure_at" TIMESTAMP WITH TIME ZONE, "last_error" text,
        "failed_deliveries" integer NOT NULL DEFAULT 0, "alerted_at" TIMESTAMP WITH TIME ZONE, "alert_open" boolean NOT NULL DEFAULT false, "recovered_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_6ee37a7ff9f469d47efbdb8ea29" PRIMARY KEY ("app_id"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_health"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "recovering"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "held_reason"`);
    await queryRunner.query(`ALTER TABLE "apps" DROP COLUMN "webhook_state"`);
  }
}
