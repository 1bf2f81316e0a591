import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookDeliveries1795320018601 implements MigrationInterface {
  name = 'WebhookDeliveries1795320018601';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_attempts" ("delivery_id" text NOT NULL, "number" integer NOT NULL, "trigger" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_ms" integer, "status_code" integer, "error" text, "response_body_excerpt" text, "url" text, "request_headers" jsonb, "finished" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_85b76907290dffa223b184a3b3d" PRIMARY KEY ("delivery_id", "number"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" text NOT NULL, "event_id" text NOT NULL, "app_id" text NOT NULL, "event_type" text NOT NULL, "purchase_id" text NOT NULL, "status" text NOT NULL, "attempt_count" integer NOT NULL DEFAULT '0', "scheduled_attempts_done" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "claim_token" text, "claim_expires_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_purchase" ON "webhook_deliveries"  ("purchase_id", "id") `);
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_app_status" ON "webhook_deliveries"  ("app_id", "status", "id") `);
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_app" ON "webhook_deliveries"  ("app_id", "id") `);
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_due" ON "webhook_deliveries"  ("next_attempt_at") WHERE status IN ('PENDING', 'RETRYING')`);
    await queryRunner.query(
      `CREATE TABLE "webhook_events" ("id" text NOT NULL, "type" text NOT NULL, "app_id" text NOT NULL, "user_id" text NOT NULL, "purchase_id" text NOT NULL, "payload" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_4cba37e6a0acb5e1fc49c34ebfd" PRIMARY KEY ("id"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_events"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_due"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_app"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_app_status"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_purchase"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
  }
}
