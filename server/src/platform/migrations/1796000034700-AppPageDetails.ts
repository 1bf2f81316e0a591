import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * The app page's details: a long description, screenshots, and support and privacy policy pages. Nullable
 * without defaults, so only the catalog changes, each lock taken within a second or tried again
 * (short-locks.ts). The previous release neither writes nor reads them: its inserts leave them null (none),
 * and an approval it makes lists the version without them, which the store then shows without details.
 */
export class AppPageDetails1796000034700 implements MigrationInterface {
  name = 'AppPageDetails1796000034700';

  async up(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "apps" ADD "long_description" text, ADD "screenshot_urls" text array, ADD "support_url" text, ADD "privacy_policy_url" text`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [
      `ALTER TABLE "apps" DROP COLUMN "long_description", DROP COLUMN "screenshot_urls", DROP COLUMN "support_url", DROP COLUMN "privacy_policy_url"`,
    ]);
  }
}
