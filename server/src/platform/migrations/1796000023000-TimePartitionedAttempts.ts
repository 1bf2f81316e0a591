import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { TimePartitionedTable } from '../time-partitions.js';
import { partitionTable, unpartitionTable } from './partition-table.js';

/** The tables as they were when this migration was made; each one's storage options are read as found. */
const TABLES: TimePartitionedTable[] = [
  { table: 'webhook_attempts', keyColumn: 'delivery_id', idPrefix: 'dlv_' },
  { table: 'webhook_request_headers', keyColumn: 'delivery_id', idPrefix: 'dlv_' },
];

/** Partitions made ahead of now, so that the rows written until the worker's own run lands in them (attempt-retention.ts). */
const SPANS_AHEAD = 3;

/**
 * webhook_attempts and webhook_request_headers partitioned by time (their delivery_id, a ULID), so that
 * attempt retention drops a week's partition instead of deleting its rows (platform/time-partitions.ts).
 * Each table is rebuilt as partition-table.ts says; every statement that names it reads and writes it as before.
 */
export class TimePartitionedAttempts1796000023000 implements MigrationInterface {
  name = 'TimePartitionedAttempts1796000023000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) await partitionTable(queryRunner, table, SPANS_AHEAD);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { table } of TABLES) await unpartitionTable(queryRunner, table);
  }
}
