import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * A refund notice's figure as a fact beside its English message (notifications.points), so the portal can
 * say in its reader's language how many points came back. Nullable without a default: the catalog only
 * changes, its lock taken within a second or tried again (short-locks.ts). Older refund notices keep their
 * figure in their message alone; the portal says them without it. The previous release neither writes nor
 * reads it.
 */
export class NotificationPoints1796000032500 implements MigrationInterface {
  name = 'NotificationPoints1796000032500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "notifications" ADD "points" integer`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "notifications" DROP COLUMN "points"`]);
  }
}
