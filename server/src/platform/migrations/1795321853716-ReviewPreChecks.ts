import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ReviewPreChecks1795321853716 implements MigrationInterface {
  name = 'ReviewPreChecks1795321853716';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "app_pre_checks" ("app_id" text NOT NULL, "revision" integer NOT NULL, "status" text NOT NULL, "results" jsonb NOT NULL DEFAULT '[]', "requested_at" TIMESTAMP WITH TIME ZONE NOT NULL, "completed_at" TIMESTAMP WITH TIME ZONE, "claim_expires_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_aadd5ed9496559d2816ff2800aa" PRIMARY KEY ("app_id", "revision"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "app_pre_checks"`);
  }
}
