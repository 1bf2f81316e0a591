import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { TimePartitionedTable } from '../time-partitions.js';
import { partitionTable, unpartitionTable } from './partition-table.js';

/** The table as it was when this migration was made. */
const EVENTS: TimePartitionedTable = { table: 'webhook_events', keyColumn: 'id', idPrefix: 'evt_' };

/** Partitions made ahead of now, so that the events written until the worker's first hourly run land in them (body-retention.ts). */
const SPANS_AHEAD = 3;

/**
 * webhook_events partitioned by time (its id, evt_ + ULID: the event's own time), so that
 * WEBHOOK_BODY_RETENTION drops a week's bodies as one partition instead of deleting their rows
 * (platform/time-partitions.ts). The table is rebuilt as partition-table.ts says (its primary key is the id,
 * the partition key, so it stays unique); every statement that names it reads and writes it as before.
 */
export class PartitionedEvents1796000025000 implements MigrationInterface {
  name = 'PartitionedEvents1796000025000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await partitionTable(queryRunner, EVENTS, SPANS_AHEAD);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await unpartitionTable(queryRunner, EVENTS.table);
  }
}
