/**
 * The database's side of the soak, read with each sample so that a latency that drifts can be put down to a cause:
 * the two statements on every delivery's path (the claim and the result write), checkpoints and who wrote buffers,
 * and the delivery tables' sizes, dead rows, HOT updates and autovacuum runs. Apart from the run so that the
 * comparison of the first and last windows can be checked on made-up readings.
 */
import type pg from 'pg';
import type { SoakWindows } from './soak-verdicts.js';

/** Loaded at the soak's PostgreSQL start: pg_stat_statements needs its shared memory from the start. */
export const SOAK_DATABASE_SETTINGS = { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' };

/**
 * SOAK_POSTGRES_SETTINGS: server settings of an A/B of the database's own configuration (the soak's PostgreSQL has the
 * defaults otherwise), as `name=value` pairs separated by commas: `shared_buffers=1GB,bgwriter_lru_maxpages=1000`.
 */
export function askedDatabaseSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const asked: Record<string, string> = {};
  for (const pair of (env.SOAK_POSTGRES_SETTINGS ?? '').split(',').filter((text) => text.trim() !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1) throw new Error(`SOAK_POSTGRES_SETTINGS: "${pair}" is not name=value`);
    asked[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return asked;
}

/** The statements timed, each recognised by a fragment of its text only it has (delivery-queries.ts). */
const STATEMENTS = { claim: 'within_endpoint_slots AS', write: 'moved_on AS' } as const;
type StatementName = keyof typeof STATEMENTS;

/** The tables whose growth and upkeep are read (webhook_attempts summed over its partitions). */
export const SOAK_TABLES = ['webhook_deliveries', 'webhook_attempts'] as const;

/** Cumulative figures (since the start, except maxMs: since the previous reading) of one statement. */
export interface StatementReading {
  calls: number;
  totalMs: number;
  /** The longest call since the previous reading (its min/max are reset after each). */
  maxMs: number;
}

export interface TableReading {
  heapBytes: number;
  indexBytes: number;
  liveRows: number;
  deadRows: number;
  /** Cumulative: rows updated, of them HOT (no index entry written), autovacuum and autoanalyze runs. */
  updates: number;
  hotUpdates: number;
  autovacuums: number;
  autoanalyzes: number;
}

/** One reading; every counter is cumulative, the windows' figures are differences. */
export interface DatabaseReading {
  /** null where pg_stat_statements could not be read (a DATABASE_URL database without it). */
  statements: Record<StatementName, StatementReading> | null;
  checkpoints: { timed: number; requested: number; buffersWritten: number; writeMs: number; syncMs: number };
  /** Buffers the background writer cleaned, and those client backends had to write themselves (pg_stat_io). */
  bgwriterBuffers: number;
  backendWrites: number;
  walBytes: number;
  tables: Record<string, TableReading>;
}

/** Makes the extension where it is loaded; false where it cannot be read (then the statements are not reported). */
export async function prepareStatementStatistics(client: pg.Client): Promise<boolean> {
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

export async function readDatabase(client: pg.Client, withStatements: boolean): Promise<DatabaseReading> {
  let statements: DatabaseReading['statements'] = null;
  if (withStatements) {
    statements = { claim: { calls: 0, totalMs: 0, maxMs: 0 }, write: { calls: 0, totalMs: 0, maxMs: 0 } };
    const { rows } = await client.query<{ query: string; calls: string; total: number; max: number }>(
      `SELECT query, calls, total_exec_time AS total, max_exec_time AS max FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    for (const row of rows) {
      const name = (Object.keys(STATEMENTS) as StatementName[]).find((key) => row.query.includes(STATEMENTS[key]));
      if (!name) continue;
      const reading = statements[name];
      reading.calls += Number(row.calls);
      reading.totalMs += row.total;
      reading.maxMs = Math.max(reading.maxMs, row.max);
    }
    // Only min and max start again (PostgreSQL 17+): the next reading's max is that of its own interval.
    await client.query('SELECT pg_stat_statements_reset(0, 0, 0, true)');
  }
  const [checkpointer] = (
    await client.query<{ timed: string; requested: string; written: string; write_ms: number; sync_ms: number }>(
      'SELECT num_timed AS timed, num_requested AS requested, buffers_written AS written, write_time AS write_ms, sync_time AS sync_ms FROM pg_stat_checkpointer',
    )
  ).rows;
  const [writes] = (
    await client.query<{ bgwriter: string; backends: string | null; wal: string }>(
      `SELECT (SELECT buffers_clean FROM pg_stat_bgwriter) AS bgwriter,
              (SELECT sum(writes) FROM pg_stat_io WHERE backend_type = 'client backend') AS backends,
              (SELECT wal_bytes FROM pg_stat_wal) AS wal`,
    )
  ).rows;
  const tables: Record<string, TableReading> = {};
  for (const table of SOAK_TABLES) {
    // A partitioned table's figures are its partitions' (the parent holds no rows).
    const [row] = (
      await client.query(
        `SELECT coalesce(sum(pg_relation_size(s.relid)), 0) AS heap, coalesce(sum(pg_indexes_size(s.relid)), 0) AS indexes,
                coalesce(sum(n_live_tup), 0) AS live, coalesce(sum(n_dead_tup), 0) AS dead, coalesce(sum(n_tup_upd), 0) AS updates,
                coalesce(sum(n_tup_hot_upd), 0) AS hot, coalesce(sum(autovacuum_count), 0) AS autovacuums, coalesce(sum(autoanalyze_count), 0) AS autoanalyzes
           FROM (SELECT relid FROM pg_partition_tree($1::regclass) WHERE isleaf
                 -- pg_partition_tree has no rows for a table that is not partitioned.
                 UNION ALL SELECT $1::regclass WHERE (SELECT relkind FROM pg_class WHERE oid = $1::regclass) = 'r') t
           JOIN pg_stat_user_tables s ON s.relid = t.relid`,
        [table],
      )
    ).rows;
    tables[table] = {
      heapBytes: Number(row.heap),
      indexBytes: Number(row.indexes),
      liveRows: Number(row.live),
      deadRows: Number(row.dead),
      updates: Number(row.updates),
      hotUpdates: Number(row.hot),
      autovacuums: Number(row.autovacuums),
      autoanalyzes: Number(row.autoanalyzes),
    };
  }
  return {
    statements,
    checkpoints: {
      timed: Number(checkpointer!.timed),
      requested: Number(checkpointer!.requested),
      buffersWritten: Number(checkpointer!.written),
      writeMs: checkpointer!.write_ms,
      syncMs: checkpointer!.sync_ms,
    },
    bgwriterBuffers: Number(writes!.bgwriter),
    backendWrites: Number(writes!.backends ?? 0),
    walBytes: Number(writes!.wal),
    tables,
  };
}

/** A sample with its database reading. */
export interface DatabaseSample {
  atSeconds: number;
  database: DatabaseReading;
}

/** What happened in one window: the differences from the reading before its first sample to its last. */
export interface DatabaseWindow {
  seconds: number;
  statements: Record<StatementName, { callsPerSecond: number; meanMs: number; maxMs: number }> | null;
  checkpoints: number;
  requestedCheckpoints: number;
  checkpointBuffersPerSecond: number;
  checkpointWriteSyncMs: number;
  bgwriterBuffersPerSecond: number;
  backendWritesPerSecond: number;
  walMiBPerSecond: number;
  tables: Record<
    string,
    { heapMiB: number; indexMiB: number; heapGrowthMiB: number; indexGrowthMiB: number; deadRows: number; hotShare: number; autovacuums: number; autoanalyzes: number }
  >;
}

/** The window of `inWindow` (samples of `all`, in order): from the sample before its first (or its first) to its last. */
export function databaseWindow(all: DatabaseSample[], inWindow: DatabaseSample[]): DatabaseWindow | null {
  const last = inWindow.at(-1);
  if (!last) return null;
  const firstIndex = all.indexOf(inWindow[0]!);
  const start = all[Math.max(0, firstIndex - 1)]!;
  const seconds = Math.max(1e-3, last.atSeconds - start.atSeconds);
  const [a, b] = [start.database, last.database];
  const statements = (() => {
    if (!a.statements || !b.statements) return null;
    const of = (name: StatementName) => {
      const calls = b.statements![name].calls - a.statements![name].calls;
      return {
        callsPerSecond: calls / seconds,
        meanMs: calls > 0 ? (b.statements![name].totalMs - a.statements![name].totalMs) / calls : NaN,
        // Each reading's max is of its own interval: the window's is the largest of its samples'.
        maxMs: Math.max(...inWindow.map((s) => s.database.statements?.[name].maxMs ?? 0)),
      };
    };
    return { claim: of('claim'), write: of('write') };
  })();
  const tables: DatabaseWindow['tables'] = {};
  for (const name of Object.keys(b.tables)) {
    const [ta, tb] = [a.tables[name]!, b.tables[name]!];
    const updates = tb.updates - ta.updates;
    tables[name] = {
      heapMiB: tb.heapBytes / 2 ** 20,
      indexMiB: tb.indexBytes / 2 ** 20,
      heapGrowthMiB: (tb.heapBytes - ta.heapBytes) / 2 ** 20,
      indexGrowthMiB: (tb.indexBytes - ta.indexBytes) / 2 ** 20,
      deadRows: tb.deadRows,
      hotShare: updates > 0 ? (tb.hotUpdates - ta.hotUpdates) / updates : NaN,
      autovacuums: tb.autovacuums - ta.autovacuums,
      autoanalyzes: tb.autoanalyzes - ta.autoanalyzes,
    };
  }
  return {
    seconds,
    statements,
    checkpoints: b.checkpoints.timed + b.checkpoints.requested - a.checkpoints.timed - a.checkpoints.requested,
    requestedCheckpoints: b.checkpoints.requested - a.checkpoints.requested,
    checkpointBuffersPerSecond: (b.checkpoints.buffersWritten - a.checkpoints.buffersWritten) / seconds,
    checkpointWriteSyncMs: b.checkpoints.writeMs + b.checkpoints.syncMs - a.checkpoints.writeMs - a.checkpoints.syncMs,
    bgwriterBuffersPerSecond: (b.bgwriterBuffers - a.bgwriterBuffers) / seconds,
    backendWritesPerSecond: (b.backendWrites - a.backendWrites) / seconds,
    walMiBPerSecond: (b.walBytes - a.walBytes) / 2 ** 20 / seconds,
    tables,
  };
}

const n = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** The first and last windows side by side, one row per figure (markdown). */
export function databaseWindowsTable(all: DatabaseSample[], windows: SoakWindows & { first: DatabaseSample[]; last: DatabaseSample[] }): string {
  const first = databaseWindow(all, windows.first);
  const last = databaseWindow(all, windows.last);
  if (!first || !last) return 'No database readings in a window.\n';
  const rows: [string, (w: DatabaseWindow) => string][] = [];
  for (const [name, label] of [
    ['claim', 'Claim'],
    ['write', 'Result write'],
  ] as const)
    rows.push([
      `${label}: calls/s, mean, longest`,
      (w) => (w.statements ? `${n(w.statements[name].callsPerSecond)}/s, ${n(w.statements[name].meanMs, 2)} ms, ${n(w.statements[name].maxMs)} ms` : 'n/a (no pg_stat_statements)'),
    ]);
  rows.push(
    ['Checkpoints (of them requested), write + sync time', (w) => `${w.checkpoints} (${w.requestedCheckpoints}), ${n(w.checkpointWriteSyncMs / 1000)} s`],
    [
      'Buffers written/s: checkpointer, background writer, client backends',
      (w) => `${n(w.checkpointBuffersPerSecond)}, ${n(w.bgwriterBuffersPerSecond)}, ${n(w.backendWritesPerSecond)}`,
    ],
    ['WAL written', (w) => `${n(w.walMiBPerSecond, 2)} MiB/s`],
  );
  for (const table of Object.keys(last.tables))
    rows.push(
      [
        `${table}: heap, indexes at the window's end (grown in it)`,
        (w) => `${n(w.tables[table]!.heapMiB)} (+${n(w.tables[table]!.heapGrowthMiB)}) MiB, ${n(w.tables[table]!.indexMiB)} (+${n(w.tables[table]!.indexGrowthMiB)}) MiB`,
      ],
      [
        `${table}: dead rows at the end, HOT share of updates, autovacuum / autoanalyze runs`,
        (w) =>
          `${w.tables[table]!.deadRows.toLocaleString('en-US')}, ${n(w.tables[table]!.hotShare * 100, 0)}%, ${w.tables[table]!.autovacuums} / ${w.tables[table]!.autoanalyzes}`,
      ],
    );
  return `| Database, per window | First (${Math.round(first.seconds)} s) | Last (${Math.round(last.seconds)} s) |
|---|---|---|
${rows.map(([label, cell]) => `| ${label} | ${cell(first)} | ${cell(last)} |`).join('\n')}
`;
}
