import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Zero-downtime rotation: the replaced client secret is kept, sealed, until its overlap ends, so both
 * secrets sign meanwhile. Existing rows have no overlap running (all three null).
 */
export class SecretRotationOverlap1796000012000 implements MigrationInterface {
  name = 'SecretRotationOverlap1796000012000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client_secrets" ADD "previous_key_id" text`);
    await queryRunner.query(`ALTER TABLE "client_secrets" ADD "previous_ciphertext" bytea`);
    await queryRunner.query(`ALTER TABLE "client_secrets" ADD "previous_valid_until" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "client_secrets" DROP COLUMN "previous_valid_until"`);
    await queryRunner.query(`ALTER TABLE "client_secrets" DROP COLUMN "previous_ciphertext"`);
    await queryRunner.query(`ALTER TABLE "client_secrets" DROP COLUMN "previous_key_id"`);
  }
}
