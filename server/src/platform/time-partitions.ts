import type { DataSource, EntityManager } from 'typeorm';
import { decodeTime, encodeTime } from 'ulid';

/**
 * Tables partitioned by RANGE over a ULID-keyed text column: ids start with their creation
 * time (platform/ids.ts), so `prefix` + the 10 time characters of an instant is a bound, and a span of
 * time is a range of keys. Retention then drops a whole partition instead of deleting its rows one by
 * one (no dead rows, no WAL per row, no vacuum after).
 *
 * Each table has partitions named `<table>_p<yyyymmdd>` (UTC date of the span start) and a
 * `<table>_default` partition for everything outside them (rows older than the first partition, rows
 * kept past retention, ids of a span nobody created yet), so an insert never fails for want of one.
 */
export interface TimePartitionedTable {
  table: string;
  keyColumn: string;
  idPrefix: string;
  /** Storage parameters of every partition, e.g. 'fillfactor = 70' (a partitioned parent holds none itself). */
  storage?: string;
}

/**
 * A week (Monday 00:00 UTC to the next). Measured with the same 60 days of attempts (1,000 deliveries
 * a day) in 64 daily, 10 weekly or 1 partition (BENCHMARKS.md section 4): every statement reads only
 * the partitions holding its ids (attempt-partition-plans.test.ts), but what the planner and the
 * executor's start do per partition grows with their count. The claim, prepared, took 0.42 ms daily,
 * 0.15 ms weekly, 0.19 ms with one (0.98 ms with 184 daily partitions); the log page's attempts read
 * planned in 0.57-0.62 ms daily, 0.61 weekly, 0.36 with one. With WEBHOOK_ATTEMPT_RETENTION's 90 days
 * that is 14 partitions a table instead of 93, at the price of keeping attempts up to a week past the
 * retention instead of a day.
 */
export const PARTITION_SPAN_MS = 7 * 24 * 3_600_000;

/** Spans are counted from a Monday (1970-01-05), so a week starts on Monday and a day at 00:00 UTC. */
const SPAN_ORIGIN_MS = Date.UTC(1970, 0, 5);

/** The start of the span holding `atMs`. */
export const spanStart = (atMs: number) => Math.floor((atMs - SPAN_ORIGIN_MS) / PARTITION_SPAN_MS) * PARTITION_SPAN_MS + SPAN_ORIGIN_MS;

/** The smallest key of the span holding `atMs`: prefix + the ULID time part of the span start. */
export function partitionBoundFor(prefix: string, atMs: number): string {
  return `${prefix}${encodeTime(spanStart(atMs), 10)}`;
}

/** `<table>_p<yyyymmdd>` of the span starting at `startMs`. */
export const partitionName = (t: TimePartitionedTable, startMs: number) => `${t.table}_p${new Date(startMs).toISOString().slice(0, 10).replaceAll('-', '')}`;

export const defaultPartitionName = (t: TimePartitionedTable) => `${t.table}_default`;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const PREFIX = /^[a-z]+_$/;

/** Names go into DDL unquoted-safe: only the code's own constants, never input. */
function checked(t: TimePartitionedTable): TimePartitionedTable {
  if (!IDENTIFIER.test(t.table) || !IDENTIFIER.test(t.keyColumn) || !PREFIX.test(t.idPrefix)) throw new Error(`not a plain table definition: ${JSON.stringify(t)}`);
  if (t.storage !== undefined && !/^[a-z_]+ *= *[0-9a-z_]+( *, *[a-z_]+ *= *[0-9a-z_]+)*$/.test(t.storage)) throw new Error(`not plain storage parameters: ${t.storage}`);
  return t;
}

/** One partition as pg_inherits and its bound expression say: null bounds for the default partition. */
export interface PartitionInfo {
  name: string;
  from: string | null;
  to: string | null;
}

type Queryable = Pick<DataSource | EntityManager, 'query'>;

/** The partitions of `t` as they are now. */
export async function listPartitions(db: Queryable, t: TimePartitionedTable): Promise<PartitionInfo[]> {
  const rows: { name: string; bound: string }[] = await db.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass($1)
      ORDER BY c.relname`,
    [checked(t).table],
  );
  return rows.map(({ name, bound }) => {
    const range = /^FOR VALUES FROM \('([^']*)'\) TO \('([^']*)'\)$/.exec(bound);
    return { name, from: range?.[1] ?? null, to: range?.[2] ?? null };
  });
}

/** The instant a bound stands for (its ULID time part). */
const boundTime = (t: TimePartitionedTable, bound: string) => decodeTime(bound.slice(t.idPrefix.length, t.idPrefix.length + 10).padEnd(26, '0'));

/** The parent's columns by name, in order (by name, not position: a partition may hold dropped columns). */
async function columnList(db: Queryable, t: TimePartitionedTable): Promise<string> {
  const rows: { name: string }[] = await db.query(
    `SELECT quote_ident(attname) AS name FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [t.table],
  );
  return rows.map((r) => r.name).join(', ');
}

/**
 * Sets lock_timeout for the rest of `work` in transaction `tx`, then puts back what it was (a migration's
 * transaction goes on after this module's part of it).
 */
async function withLockTimeout<T>(tx: Queryable, work: () => Promise<T>): Promise<T> {
  const [{ previous }]: [{ previous: string }] = await tx.query(`SELECT current_setting('lock_timeout') AS previous`);
  await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [DDL_LOCK_TIMEOUT]);
  const result = await work();
  await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [previous]);
  return result;
}

/** Runs `work` in a transaction of its own unless `db` already is one (an EntityManager inside a transaction). */
async function inTransaction<T>(db: DataSource | EntityManager, work: (tx: Queryable) => Promise<T>): Promise<T> {
  if ('queryRunner' in db && db.queryRunner?.isTransactionActive) return work(db);
  return (db as DataSource).transaction((manager) => work(manager));
}

/**
 * A partition is attached under SHARE UPDATE EXCLUSIVE on the parent (reads and writes go on), not
 * created in place (CREATE TABLE ... PARTITION OF locks the parent exclusively); detaching one locks the
 * parent exclusively for as long as its kept rows take to copy. A lock wait longer than this gives up
 * (the hourly job tries again): while the DDL waits behind a long statement, every later statement on
 * the table waits behind the DDL.
 */
const DDL_LOCK_TIMEOUT = '1s';

/**
 * Creates the partitions of `t` missing for [fromMs, toMs) (and the default partition if missing) and
 * returns the names it created. Idempotent; two workers running it at once take turns (an advisory
 * lock per table). Rows of the new range already in the default partition (written while no partition
 * covered them) move into the new one in the same transaction.
 */
export async function ensurePartitions(db: DataSource | EntityManager, t: TimePartitionedTable, fromMs: number, toMs: number): Promise<string[]> {
  checked(t);
  return inTransaction(db, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`time-partitions:${t.table}`]);
    return withLockTimeout(tx, async () => {
      const created: string[] = [];
      const existing = await listPartitions(tx, t);
      const names = new Set(existing.map((p) => p.name));
      const withStorage = t.storage ? ` WITH (${t.storage})` : '';
      const defaultName = defaultPartitionName(t);
      if (!names.has(defaultName)) {
        await tx.query(`CREATE TABLE ${defaultName} PARTITION OF ${t.table} DEFAULT${withStorage}`);
        created.push(defaultName);
      }
      const ranges = existing.filter((p) => p.from !== null && p.to !== null) as { name: string; from: string; to: string }[];
      for (let start = spanStart(fromMs); start < toMs; start += PARTITION_SPAN_MS) {
        const name = partitionName(t, start);
        const from = partitionBoundFor(t.idPrefix, start);
        const to = partitionBoundFor(t.idPrefix, start + PARTITION_SPAN_MS);
        // An existing partition of that name, or any overlapping one (made with another span), covers it already.
        if (names.has(name) || ranges.some((r) => r.from < to && r.to > from)) continue;
        await tx.query(`CREATE TABLE ${name} (LIKE ${t.table} INCLUDING DEFAULTS INCLUDING STORAGE)${withStorage}`);
        // ATTACH takes this lock too (it checks that the default partition holds nothing of the new range);
        // taken first, no row can land there between the move below and that check.
        await tx.query(`LOCK TABLE ${defaultName} IN ACCESS EXCLUSIVE MODE`);
        const columns = await columnList(tx, t);
        await tx.query(
          `WITH moved AS (DELETE FROM ${defaultName} WHERE ${t.keyColumn} >= '${from}' AND ${t.keyColumn} < '${to}' RETURNING ${columns})
           INSERT INTO ${name} (${columns}) SELECT ${columns} FROM moved`,
        );
        await tx.query(`ALTER TABLE ${t.table} ATTACH PARTITION ${name} FOR VALUES FROM ('${from}') TO ('${to}')`);
        created.push(name);
      }
      return created;
    });
  });
}

/**
 * Detaches and drops every partition of `t` whose whole range ends at or before `cutoffMs`, one
 * transaction per partition. Rows matching `keep.where` (an SQL condition on alias `p`) are first copied
 * into the default partition, so nothing not yet settled is lost. The default partition itself is
 * never dropped: the caller prunes it row by row (it is small).
 */
export async function dropPartitionsBefore(db: DataSource, t: TimePartitionedTable, cutoffMs: number, keep: { where: string }): Promise<{ dropped: string[]; rowsKept: number }> {
  checked(t);
  const dropped: string[] = [];
  let rowsKept = 0;
  const expired = (await listPartitions(db, t)).filter((p) => p.to !== null && boundTime(t, p.to) <= cutoffMs);
  for (const partition of expired) {
    rowsKept += await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`time-partitions:${t.table}`]);
      await tx.query(`SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT}'`);
      // Another worker may have dropped it meanwhile.
      if (!(await listPartitions(tx, t)).some((p) => p.name === partition.name)) return 0;
      // Detached first: while attached, its range is not the default partition's to take. The parent
      // stays locked until commit, so no write reaches the detached rows between the copy and the drop.
      await tx.query(`ALTER TABLE ${t.table} DETACH PARTITION ${partition.name}`);
      const columns = await columnList(tx, t);
      const [{ kept }]: [{ kept: number }] = await tx.query(
        `WITH kept AS (INSERT INTO ${t.table} (${columns}) SELECT ${columns.replace(/(^|, )/g, '$1p.')} FROM ${partition.name} p WHERE ${keep.where} RETURNING 1)
         SELECT count(*)::int AS kept FROM kept`,
      );
      await tx.query(`DROP TABLE ${partition.name}`);
      dropped.push(partition.name);
      return kept;
    });
  }
  return { dropped, rowsKept };
}
