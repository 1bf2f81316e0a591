import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The facts a notification's English message was written from, so the portal can
 * say it in its reader's language. Backfilled where the database still knows them: the app's name (as
 * it is now) and a rejection's reasons and note (the app's latest rejection up to the notification).
 * Webhook facts of older notifications are gone; the portal shows those rows' message.
 */
export class NotificationFacts1796000021000 implements MigrationInterface {
  name = 'NotificationFacts1796000021000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "notifications" ADD "app_name" text, ADD "reasons" text array, ADD "note" text, ADD "since" TIMESTAMP WITH TIME ZONE, ADD "last_error" text, ADD "failed_deliveries" integer`,
    );
    await queryRunner.query(`UPDATE "notifications" n SET "app_name" = a."name" FROM "apps" a WHERE a."id" = n."app_id"`);
    await queryRunner.query(
      `UPDATE "notifications" n SET ("reasons", "note") = (SELECT r."reasons", r."note" FROM "review_decisions" r
          WHERE r."app_id" = n."app_id" AND r."outcome" = 'REJECTED' AND r."decided_at" <= n."created_at"
          ORDER BY r."decided_at" DESC LIMIT 1)
        WHERE n."kind" = 'APP_REJECTED'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "notifications" DROP COLUMN "failed_deliveries", DROP COLUMN "last_error", DROP COLUMN "since", DROP COLUMN "note", DROP COLUMN "reasons", DROP COLUMN "app_name"`,
    );
  }
}
