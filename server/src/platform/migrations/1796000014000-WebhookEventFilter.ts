import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event filters: the events an app's webhook is sent (GraphQL enum names). Every existing app keeps
 * receiving all four, as before; app.test is always sent and never listed.
 */
export class WebhookEventFilter1796000014000 implements MigrationInterface {
  name = 'WebhookEventFilter1796000014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "apps" ADD "webhook_events" text[] NOT NULL DEFAULT '{APP_PURCHASED,APP_INSTALLED,APP_UNINSTALLED,APP_REFUNDED}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "apps" DROP COLUMN "webhook_events"`);
  }
}
