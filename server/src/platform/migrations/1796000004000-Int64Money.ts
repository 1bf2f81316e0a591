import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every amount, sum and balance is 64-bit: 32-bit columns overflowed once sales passed ~2.1 billion VND. */
const COLUMNS: [table: string, column: string][] = [
  ['accounts', 'points'],
  ['purchases', 'amount_vnd'],
  ['purchases', 'developer_share_vnd'],
  ['revenue_ledger', 'gross_vnd'],
  ['revenue_ledger', 'developer_share_vnd'],
  ['revenue_ledger', 'platform_share_vnd'],
  ['point_movements', 'delta'],
];

export class Int64Money1796000004000 implements MigrationInterface {
  name = 'Int64Money1796000004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One statement per table, so each table is rewritten once.
    for (const table of new Set(COLUMNS.map(([t]) => t))) {
      const alters = COLUMNS.filter(([t]) => t === table).map(([, column]) => `ALTER COLUMN "${column}" TYPE bigint`);
      await queryRunner.query(`ALTER TABLE "${table}" ${alters.join(', ')}`);
    }
  }

  /** Fails (integer out of range) if any value no longer fits 32 bits: nothing is truncated. */
  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of new Set(COLUMNS.map(([t]) => t))) {
      const alters = COLUMNS.filter(([t]) => t === table).map(([, column]) => `ALTER COLUMN "${column}" TYPE integer`);
      await queryRunner.query(`ALTER TABLE "${table}" ${alters.join(', ')}`);
    }
  }
}
