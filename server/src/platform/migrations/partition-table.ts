import type { QueryRunner } from 'typeorm';
import { decodeTime } from 'ulid';
import { ensurePartitions, PARTITION_SPAN_MS, type TimePartitionedTable } from '../time-partitions.js';

/**
 * Migration steps shared by the migrations that turn a ULID-keyed table into one partitioned by time
 * (1796000023000 attempts and request headers, 1796000025000 events): the table is rebuilt as a
 * partitioned parent with the same columns in the same order, defaults, primary key and indexes,
 * partitions from its oldest row's span to `spansAhead` spans ahead plus a default partition, the rows
 * copied over in key order, the old table dropped. Every statement that names the table reads and
 * writes it as before. A migration must keep meaning what it meant: change these only to fix them.
 */
export async function partitionTable(queryRunner: QueryRunner, found: TimePartitionedTable, spansAhead: number): Promise<void> {
  const { table, keyColumn, idPrefix } = found;
  const old = `${table}_unpartitioned`;
  const [{ reloptions }]: [{ reloptions: string[] | null }] = await queryRunner.query(`SELECT reloptions FROM pg_class WHERE oid = $1::regclass`, [table]);
  const { primaryKey, otherIndexes } = await keysOf(queryRunner, table);
  const [{ oldest }]: [{ oldest: string | null }] = await queryRunner.query(`SELECT min(${keyColumn}) AS oldest FROM ${table}`);

  // The old table gives up its name and its index names (unique per schema) to the new one.
  await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${primaryKey.name}"`);
  for (const index of otherIndexes) await queryRunner.query(`DROP INDEX ${index.name}`);
  await queryRunner.query(`ALTER TABLE "${table}" RENAME TO "${old}"`);
  await queryRunner.query(`CREATE TABLE "${table}" (LIKE "${old}" INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE ("${keyColumn}")`);
  await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${primaryKey.name}" ${primaryKey.definition}`);
  for (const index of otherIndexes) await queryRunner.query(index.definition);

  // A partitioned parent holds no storage options: each partition gets the old table's.
  const partitioned: TimePartitionedTable = { ...found, storage: reloptions?.length ? reloptions.join(', ') : undefined };
  const now = Date.now();
  const from = Math.min(now, timeOf(oldest, idPrefix) ?? now);
  await ensurePartitions(queryRunner.manager, partitioned, from, now + spansAhead * PARTITION_SPAN_MS);

  const columns: { name: string }[] = await queryRunner.query(
    `SELECT quote_ident(attname) AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [old],
  );
  const list = columns.map((c) => c.name).join(', ');
  await queryRunner.query(`INSERT INTO "${table}" (${list}) SELECT ${list} FROM "${old}" ORDER BY ${primaryKey.definition.replace(/^PRIMARY KEY \((.*)\)$/, '$1')}`);
  await queryRunner.query(`DROP TABLE "${old}"`);
}

/** partitionTable undone: one plain table again, with the partitions' storage options, its rows, key and indexes. */
export async function unpartitionTable(queryRunner: QueryRunner, table: string): Promise<void> {
  const old = `${table}_partitioned`;
  const { primaryKey, otherIndexes } = await keysOf(queryRunner, table);
  const [options]: [{ reloptions: string[] | null } | undefined] = await queryRunner.query(
    `SELECT c.reloptions FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass LIMIT 1`,
    [table],
  );
  await queryRunner.query(`ALTER TABLE "${table}" RENAME TO "${old}"`);
  await queryRunner.query(`ALTER TABLE "${old}" DROP CONSTRAINT "${primaryKey.name}"`);
  for (const index of otherIndexes) await queryRunner.query(`DROP INDEX ${index.name}`);
  await queryRunner.query(`CREATE TABLE "${table}" (LIKE "${old}" INCLUDING DEFAULTS INCLUDING STORAGE)`);
  if (options?.reloptions?.length) await queryRunner.query(`ALTER TABLE "${table}" SET (${options.reloptions.join(', ')})`);
  await queryRunner.query(`INSERT INTO "${table}" SELECT * FROM "${old}"`);
  await queryRunner.query(`DROP TABLE "${old}"`);
  await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${primaryKey.name}" ${primaryKey.definition}`);
  for (const index of otherIndexes) await queryRunner.query(index.definition);
}

/** `table`'s primary key and its other indexes, by name and definition, so they can be made again on the rebuilt table. */
async function keysOf(queryRunner: QueryRunner, table: string) {
  const [primaryKey]: [{ name: string; definition: string }] = await queryRunner.query(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
    [table],
  );
  const otherIndexes: { name: string; definition: string }[] = await queryRunner.query(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = $1::regclass AND NOT indisprimary`,
    [table],
  );
  return { primaryKey, otherIndexes };
}

/** The time a ULID-keyed id (`prefix` + ULID) was made at, or null for an id that is not one. */
function timeOf(id: string | null, prefix: string): number | null {
  if (!id?.startsWith(prefix)) return null;
  try {
    return decodeTime(id.slice(prefix.length, prefix.length + 26));
  } catch {
    return null;
  }
}
