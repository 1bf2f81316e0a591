import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reinstall of a bought app becomes an acquisition of its own (its own purchase_id, zero amounts), so
 * an installation remembers the paid purchase its access comes from: a refund of that purchase ends
 * whichever installation is current. Installations made before this shared their purchase's id, so
 * that id is their original purchase when it was a paid one.
 */
export class ReinstallAcquisitions1796000011000 implements MigrationInterface {
  name = 'ReinstallAcquisitions1796000011000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "installations" ADD "original_purchase_id" text`);
    await queryRunner.query(
      `UPDATE "installations" i SET "original_purchase_id" = i."purchase_id" FROM "purchases" p WHERE p."purchase_id" = i."purchase_id" AND p."kind" = 'PURCHASE'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "installations" DROP COLUMN "original_purchase_id"`);
  }
}
