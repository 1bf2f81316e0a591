import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * Room on a delivery's page for its claimed version: the engine claims a producer's deliveries in batches soon
 * after they commit, while their page is the newest, and a claim changes no indexed column, so with room it is an
 * update in place (HOT). At fillfactor 70 about half the claims found no room and wrote the row's every index
 * again; at 50 nearly none do (benchmark 1, ten interleaved rounds against e3115ab: CPU per delivery 1.06x at 70,
 * 1.02x at 50; WAL 28.7 -> 25.2 records per delivery). It costs heap: a page takes half its size in new rows
 * (BENCHMARKS.md, section 1). Only the catalog changes (SHARE UPDATE EXCLUSIVE, which writes do not wait for);
 * pages take it as they are filled, the previous release's workers are unaffected.
 */
export class DeliveryClaimRoom1796000033000 implements MigrationInterface {
  name = 'DeliveryClaimRoom1796000033000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "webhook_deliveries" SET (fillfactor = 50)`]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`ALTER TABLE "webhook_deliveries" SET (fillfactor = 70)`]);
  }
}
