import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `plaza listen` and `plaza trigger`: the sample events triggered for listening CLI
 * sessions (never deliveries: nothing sends them to a webhook URL), and what local receivers answered
 * when a delivery or such an event was forwarded to them, kept apart from the delivery attempts.
 */
export class LocalForwards1796000016000 implements MigrationInterface {
  name = 'LocalForwards1796000016000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_cli_events" ("id" text NOT NULL, "app_id" text NOT NULL REFERENCES "apps" ("id") ON DELETE CASCADE, "event_type" text NOT NULL, "payload" text NOT NULL,
        "triggered_by" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_webhook_cli_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_local_forwards" ("id" text NOT NULL, "delivery_id" text NOT NULL, "app_id" text NOT NULL REFERENCES "apps" ("id") ON DELETE CASCADE, "test" boolean NOT NULL,
        "reported_by" text NOT NULL, "status_code" integer, "duration_ms" integer NOT NULL, "error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "PK_webhook_local_forwards" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_webhook_local_forwards_delivery" ON "webhook_local_forwards" ("delivery_id", "created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_local_forwards"`);
    await queryRunner.query(`DROP TABLE "webhook_cli_events"`);
  }
}
