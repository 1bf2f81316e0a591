import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * webhook_events keeps the id and the exact body only (bytes per delivery). type, app_id,
 * user_id and purchase_id are fields of the body itself, and type, app_id and purchase_id are on the
 * event's delivery too; created_at is the time in the id (a ULID) and the body's timestamp. Nothing
 * read them: every reader takes the payload by id (delivery-queries.ts, delivery-log.service.ts) and
 * retention goes by id ranges (body-retention.ts). A plain ALTER TABLE on the partitioned parent:
 * catalog-only, so it is instant on any size, but the rows already written keep the dropped values'
 * bytes until their partition is dropped by WEBHOOK_BODY_RETENTION or rewritten (VACUUM FULL); rows
 * written from now on, and partitions made from now on (time-partitions.ts copies the parent's columns),
 * are narrow.
 */
export class EventBodiesOnly1796000026500 implements MigrationInterface {
  name = 'EventBodiesOnly1796000026500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_events" DROP COLUMN "type", DROP COLUMN "app_id", DROP COLUMN "user_id", DROP COLUMN "purchase_id", DROP COLUMN "created_at"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_events" ADD COLUMN "type" text, ADD COLUMN "app_id" text, ADD COLUMN "user_id" text, ADD COLUMN "purchase_id" text, ADD COLUMN "created_at" TIMESTAMP WITH TIME ZONE`,
    );
    // Each event was written with its one delivery, from the same values (webhook-events.service.ts); the
    // user is only in the body. A body that is not the usual JSON gives an empty user rather than failing.
    await queryRunner.query(
      `UPDATE webhook_events e
          SET type = d.event_type, app_id = d.app_id, purchase_id = d.purchase_id, created_at = d.created_at,
              user_id = COALESCE(CASE WHEN e.payload IS JSON OBJECT THEN e.payload::jsonb ->> 'user_id' END, '')
         FROM webhook_deliveries d
        WHERE d.event_id = e.id`,
    );
    // An event without a delivery (none is written so): what its body says, else empty, else the id's time.
    await queryRunner.query(
      `UPDATE webhook_events e
          SET type = COALESCE(j ->> 'event', ''), app_id = COALESCE(j ->> 'app_id', ''), user_id = COALESCE(j ->> 'user_id', ''),
              purchase_id = COALESCE(j ->> 'purchase_id', ''), created_at = COALESCE((j ->> 'timestamp')::timestamptz, now())
         FROM (SELECT id, CASE WHEN payload IS JSON OBJECT THEN payload::jsonb END AS j FROM webhook_events WHERE type IS NULL) b
        WHERE b.id = e.id`,
    );
    for (const column of ['type', 'app_id', 'user_id', 'purchase_id', 'created_at']) {
      await queryRunner.query(`ALTER TABLE "webhook_events" ALTER COLUMN "${column}" SET NOT NULL`);
    }
  }
}
