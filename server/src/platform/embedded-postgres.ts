import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_SHARED_ROOT, installedBinariesDir, postgresAccount, reachableBinariesDir, reachableClusterDir, type PostgresAccount } from './embedded-postgres-placement.js';
import { logger } from './logger.js';

/** The cluster's superuser (initdb's bootstrap role): it makes Plaza's role and database, and Plaza never connects as it. */
const EMBEDDED_USER = 'plaza';
/** Plaza's own role: it owns the plaza database and what is in it, and nothing more (ensurePlazaRole). */
const PLAZA_ROLE = 'plaza_app';
const EMBEDDED_DATABASE = 'plaza';
/**
 * The superuser password of clusters made before each data directory got its own. It is only ever
 * used once, to replace itself (see `ensurePassword`).
 */
const LEGACY_PASSWORD = 'plaza-embedded';
/** The cluster's own random superuser password, inside the cluster directory, readable by Plaza's user alone. */
const PASSWORD_FILE = 'plaza-password';
/** PLAZA_ROLE's random password, beside the superuser's. */
const ROLE_PASSWORD_FILE = 'plaza-app-password';
/** Unix socket paths longer than this (sun_path, less its NUL) cannot be bound. */
const MAX_SOCKET_PATH = 107;

export interface EmbeddedDatabase {
  /** Plaza's connection: PLAZA_ROLE on the plaza database, no superuser. */
  url: string;
  /**
   * The superuser's connection to `database` (default plaza), read from the cluster directory when asked:
   * for tooling that makes databases (the tests' setup, a test of the role itself). Plaza never uses it.
   */
  superuserUrl(database?: string): string;
  /** Where the cluster lives: databaseDir, unless the postgres user could not reach it. */
  clusterDir: string;
  /** The server's executable: what a debugger needs beside a core file of one of its crashed processes. */
  postgresBinary: string;
  /** PostgreSQL's own lines about crashes and restarts since it started (the last 100), as logged: for a summary at the end of a run. */
  trouble(): readonly string[];
  stop(): Promise<void>;
}

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is a postmaster serving `clusterDir`: its command line is `postgres -D clusterDir ...`.
 * A postmaster killed with SIGKILL leaves its postmaster.pid behind, and once PIDs wrap that number may
 * belong to anything, another cluster's backend included: signalling it would cancel someone else's
 * query, and the SIGQUIT that follows would make that cluster restart. Where /proc cannot say, no.
 */
function isPostmasterOf(pid: number, clusterDir: string): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const dataDirAt = args.indexOf('-D');
    return path.basename(args[0] ?? '') === 'postgres' && dataDirAt >= 0 && path.resolve(args[dataDirAt + 1] ?? '') === path.resolve(clusterDir);
  } catch {
    return false;
  }
}

/**
 * A Plaza process killed with SIGKILL leaves its PostgreSQL child running and holding the data
 * directory. That orphan is ours (same data directory), so shut it down cleanly before starting.
 */
async function stopOrphanedPostmaster(databaseDir: string): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  // A stale file, or its number now someone else's: PostgreSQL checks and replaces the file itself.
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !isPostmasterOf(pid, databaseDir)) return;
  logger.warn({ pid, databaseDir }, 'stopping a PostgreSQL left running by an earlier Plaza process');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid); waited += 100) {
    if (waited === 10_000) process.kill(pid, 'SIGQUIT');
    if (waited > 20_000) throw new Error(`PostgreSQL process ${pid} holding ${databaseDir} did not stop`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface EmbeddedDatabaseOptions {
  databaseDir: string;
  /** Keep fsync on for anything that stores real data; tests turn it off for speed. */
  fsync?: boolean;
  /** A fixed port, e.g. to start the same server again where its clients expect it. @default a free port */
  port?: number;
  /** PostgreSQL's bin/, lib/ and share/. @default the installed @embedded-postgres package's native/ */
  binariesDir?: string;
  /** Where a root Plaza puts binaries and clusters the postgres user could not reach. @default /var/lib/plaza */
  sharedRoot?: string;
  /** More server settings (`-c name=value`), e.g. a benchmark's shared_preload_libraries. @default none */
  settings?: Record<string, string>;
  /**
   * Let a crashed server process leave a core file (`ulimit -c unlimited` for the server), for a backtrace of a
   * crash in PostgreSQL itself: the tests' shared server does. Off for Plaza, where a backend's core (its share
   * of shared_buffers and more) would fill the data directory's disk unasked. @default false
   */
  keepCoreFiles?: boolean;
}

/** Runs `command` as the postgres account (when Plaza is root), collecting its output for error messages. */
function run(command: string, args: string[], account: PostgresAccount | undefined): ChildProcess & { output: string[] } {
  // LC_MESSAGES=C: readiness is recognised by PostgreSQL's English log line.
  const child = spawn(command, args, { ...account, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] }) as ChildProcess & { output: string[] };
  child.output = [];
  const keep = (chunk: Buffer) => {
    child.output.push(...String(chunk).split('\n').filter(Boolean));
    if (child.output.length > 50) child.output.splice(0, child.output.length - 50);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return child;
}

/** PostgreSQL's reasons in one line: its FATAL/ERROR lines (or its last line), for a one-line boot failure. */
function reasons(output: string[]): string {
  const serious = output.filter((line) => /FATAL|ERROR|PANIC|could not|error/i.test(line));
  return (serious.length ? serious : output.slice(-1)).map((line) => line.replace(/^.*?(FATAL|ERROR|PANIC|LOG):\s+/, '').trim()).join('; ');
}

async function initialise(initdb: string, clusterDir: string, password: string, account: PostgresAccount | undefined): Promise<void> {
  // Parents the postgres user can traverse whatever the umask; the cluster itself private to it.
  const firstCreated = mkdirSync(path.dirname(clusterDir), { recursive: true });
  for (let dir = path.dirname(clusterDir); firstCreated && dir.startsWith(firstCreated); dir = path.dirname(dir)) chmodSync(dir, 0o755);
  mkdirSync(clusterDir, { mode: 0o700 });
  // Beside the cluster (initdb wants its directory empty), readable by the postgres user alone, removed at once.
  const passwordFile = `${clusterDir}.initdb-password`;
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (account) {
      chownSync(clusterDir, account.uid, account.gid);
      chownSync(passwordFile, account.uid, account.gid);
    }
    const child = run(
      initdb,
      [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', `--username=${EMBEDDED_USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'],
      account,
    );
    const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
    if (code !== 0) throw new Error(`embedded PostgreSQL could not initialise ${clusterDir}: ${reasons(child.output)}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

async function startPostmaster(
  postgres: string,
  clusterDir: string,
  flags: string[],
  account: PostgresAccount | undefined,
  keepCoreFiles: boolean,
): Promise<ChildProcess & { trouble: string[] }> {
  const args = ['-D', clusterDir, ...flags];
  // Node cannot set a child's limits: a shell raises the core limit and then becomes the server (exec), so the child is still the postmaster.
  const child = keepCoreFiles ? run('/bin/sh', ['-c', 'ulimit -c unlimited 2>/dev/null; exec "$0" "$@"', postgres, ...args], account) : run(postgres, args, account);
  await new Promise<void>((resolve, reject) => {
    const fail = (reason: string) => reject(new Error(`embedded PostgreSQL did not start from ${clusterDir}: ${reason}`));
    child.once('error', (err) => fail(err.message));
    // 'close', not 'exit': by then all of its output, with the reason, has been read.
    child.once('close', () => fail(reasons(child.output)));
    const ready = (chunk: Buffer) => {
      if (!String(chunk).includes('database system is ready to accept connections')) return;
      child.stderr!.off('data', ready);
      resolve();
    };
    child.stderr!.on('data', ready);
  });
  child.removeAllListeners('close');
  const trouble = reportTrouble(child, clusterDir);
  child.once('exit', (code, signal) => {
    if (!stopping.has(child)) logger.error({ code, signal, clusterDir }, 'embedded PostgreSQL exited unexpectedly');
  });
  return Object.assign(child, { trouble });
}

/**
 * What PostgreSQL says when it restarts under its clients: a process that crashed or was killed (any exit but 0
 * or 1, which are normal ends; the postmaster then ends every session and replays its log, refusing connections meanwhile), a PANIC, a full disk, no memory.
 * Plaza's own log carries these lines, since the embedded server's log is otherwise kept nowhere: without them a
 * burst of "database unavailable" has no cause anyone can find.
 */
const POSTGRES_TROUBLE =
  /PANIC|terminated by signal|exited with exit code (?![01]\b)\d|terminating any other active server processes|all server processes terminated|was interrupted|No space left|out of memory|Failed process was running/;

function reportTrouble(child: ChildProcess, clusterDir: string): string[] {
  const seen: string[] = [];
  let partial = '';
  // "Failed process was running:" is followed by the statement's further lines, untimestamped: kept with it, as
  // the first line of a long statement ("WITH r AS (") does not say which statement crashed.
  let statement: string | undefined;
  const report = (postgres: string) => {
    logger.warn({ clusterDir, postgres }, 'embedded PostgreSQL reported trouble');
    seen.push(postgres);
    if (seen.length > 100) seen.shift();
  };
  child.stderr!.on('data', (chunk: Buffer) => {
    const lines = (partial + String(chunk)).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (statement !== undefined && !STARTS_AN_ENTRY.test(line)) {
        statement = `${statement}\n${line}`.slice(0, 8000);
        continue;
      }
      if (statement !== undefined) report(statement);
      statement = undefined;
      if (!POSTGRES_TROUBLE.test(line)) continue;
      if (line.includes('Failed process was running')) statement = line.trim();
      else report(line.trim().slice(0, 2000));
    }
  });
  return seen;
}

/** The start of a new entry of PostgreSQL's log (log_line_prefix begins with the time), rather than a statement's next line. */
const STARTS_AN_ENTRY = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/;

const stopping = new WeakSet<ChildProcess>();

/** How long a fast shutdown may take before the server is stopped at once (as stopOrphanedPostmaster waits). */
const FAST_SHUTDOWN_GRACE_MS = 10_000;

/**
 * Fast shutdown (SIGINT: open sessions are ended, everything committed is kept), and, should it not end within
 * FAST_SHUTDOWN_GRACE_MS, immediate shutdown (SIGQUIT: nothing committed is lost either; the next start replays the
 * log). PostgreSQL 18.4 asked for a fast shutdown while it restarts after a crashed process (from the crash until
 * its new startup process runs, some 30-130 ms here) ignores it, and that and every later SIGINT, for good: its
 * postmaster waits on, with only its checkpointer and I/O workers left (embedded-postgres.test.ts).
 */
async function stopPostmaster(child: ChildProcess): Promise<void> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<true>((resolve) => child.once('exit', () => resolve(true)));
  const within = (ms: number) => Promise.race([exited, new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
  child.kill('SIGINT');
  if (await within(FAST_SHUTDOWN_GRACE_MS)) return;
  logger.warn(
    { postmasterPid: child.pid, graceMs: FAST_SHUTDOWN_GRACE_MS },
    'embedded PostgreSQL did not finish a fast shutdown; stopping it at once (its next start replays its log)',
  );
  child.kill('SIGQUIT');
  if (await within(FAST_SHUTDOWN_GRACE_MS)) return;
  child.kill('SIGKILL');
  await exited;
}

/**
 * The cluster's superuser password, from its file. A cluster made before there was one still has the
 * fixed legacy password: replace it with a random one now. The new password is written aside first, so
 * a start interrupted between ALTER ROLE and the rename still finds it next time.
 */
async function ensurePassword(clusterDir: string, port: number): Promise<string> {
  const file = path.join(clusterDir, PASSWORD_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const pending = `${file}.new`;
  if (!existsSync(pending)) writeFileSync(pending, randomPassword(), { mode: 0o600 });
  const password = readFileSync(pending, 'utf8').trim();
  for (const current of [LEGACY_PASSWORD, password]) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: EMBEDDED_USER, password: current, database: 'postgres' });
    const connected = await client.connect().then(
      () => true,
      () => false,
    );
    if (!connected) continue;
    try {
      if (current !== password) await client.query(`ALTER ROLE ${EMBEDDED_USER} PASSWORD ${client.escapeLiteral(password)}`);
    } finally {
      await client.end();
    }
    renameSync(pending, file);
    if (current !== password) logger.warn({ clusterDir }, 'the embedded PostgreSQL had the old fixed password; it now has its own random one');
    return password;
  }
  throw new Error(`embedded PostgreSQL in ${clusterDir} has no ${PASSWORD_FILE} and refuses the old password: restore the file or set DATABASE_URL`);
}

function randomPassword(): string {
  return randomBytes(24).toString('base64url');
}

/** The password in `file`, made (random, 0600) when there is none yet. */
function passwordFile(file: string): string {
  if (!existsSync(file)) writeFileSync(file, randomPassword(), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

async function asSuperuser(port: number, password: string, database: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: EMBEDDED_USER, password, database });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Hands whatever the superuser owns in the plaza database to PLAZA_ROLE: the tables, partitions,
 * sequences and the rest that migrations and Agenda made while Plaza still connected as the superuser
 * (data directories of earlier versions). Nothing to do, and a catalog read, on every later start.
 * Tables first: their sequences and indexes follow them; a sequence of its own after. What an
 * extension owns stays with it.
 */
const HAND_OVER_TO_PLAZA_ROLE = `DO $$
DECLARE
  item record;
BEGIN
  FOR item IN
    SELECT format('ALTER %s %s OWNER TO ${PLAZA_ROLE}', CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, c.oid::regclass) AS statement
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p', 'v', 'm') AND c.relowner <> '${PLAZA_ROLE}'::regrole
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
  LOOP
    EXECUTE item.statement;
  END LOOP;
  FOR item IN
    SELECT format('ALTER SEQUENCE %s OWNER TO ${PLAZA_ROLE}', c.oid::regclass) AS statement
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind = 'S' AND c.relowner <> '${PLAZA_ROLE}'::regrole
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
    UNION ALL
    SELECT format('ALTER TYPE %s OWNER TO ${PLAZA_ROLE}', t.oid::regtype)
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE t.typtype IN ('e', 'd', 'r') AND t.typowner <> '${PLAZA_ROLE}'::regrole
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
    UNION ALL
    SELECT format('ALTER ROUTINE %s OWNER TO ${PLAZA_ROLE}', p.oid::regprocedure)
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE p.proowner <> '${PLAZA_ROLE}'::regrole
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    UNION ALL
    -- Extended statistics (CREATE STATISTICS) have an owner of their own, not their table's.
    SELECT format('ALTER STATISTICS %I.%I OWNER TO ${PLAZA_ROLE}', n.nspname, s.stxname)
      FROM pg_statistic_ext s JOIN pg_namespace n ON n.oid = s.stxnamespace
     WHERE s.stxowner <> '${PLAZA_ROLE}'::regrole
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
    UNION ALL
    SELECT format('ALTER SCHEMA %I OWNER TO ${PLAZA_ROLE}', n.nspname)
      FROM pg_namespace n
     WHERE n.nspowner NOT IN ('${PLAZA_ROLE}'::regrole, 'pg_database_owner'::regrole)
       AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  LOOP
    EXECUTE item.statement;
  END LOOP;
END
$$`;

/**
 * Makes (or puts right) Plaza's own role and its database, as the superuser: PLAZA_ROLE may log in and
 * owns the plaza database, and may do nothing beyond it (no SUPERUSER, CREATEDB, CREATEROLE,
 * REPLICATION or BYPASSRLS, no connection to the cluster's other databases); a data directory from
 * before there was such a role is handed over to it.
 * Its attributes and password are set on every start, so a start interrupted half-way is completed by
 * the next. Returns its password.
 */
async function ensurePlazaRole(clusterDir: string, port: number, superuserPassword: string): Promise<string> {
  const password = passwordFile(path.join(clusterDir, ROLE_PASSWORD_FILE));
  await asSuperuser(port, superuserPassword, 'postgres', async (admin) => {
    const { rowCount: roleExists } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [PLAZA_ROLE]);
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${admin.escapeLiteral(password)}`;
    await admin.query(`${roleExists ? 'ALTER' : 'CREATE'} ROLE ${PLAZA_ROLE} WITH ${attributes}`);
    const [database] = (await admin.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE])).rows;
    if (!database) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE} OWNER ${PLAZA_ROLE}`);
    else if (database.owner !== PLAZA_ROLE) await admin.query(`ALTER DATABASE ${EMBEDDED_DATABASE} OWNER TO ${PLAZA_ROLE}`);
    // The cluster's other databases are the superuser's: by default every role may connect to them.
    await admin.query('REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC');
  });
  await asSuperuser(port, superuserPassword, EMBEDDED_DATABASE, (admin) => admin.query(HAND_OVER_TO_PLAZA_ROLE));
  return password;
}

/** Starts (initialising on first use) a PostgreSQL whose data survives restarts in databaseDir. */
export async function startEmbeddedPostgres({
  databaseDir,
  fsync = true,
  port: fixedPort,
  binariesDir,
  sharedRoot = DEFAULT_SHARED_ROOT,
  settings = {},
  keepCoreFiles = false,
}: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const account = postgresAccount();
  const binaries = reachableBinariesDir(binariesDir ?? installedBinariesDir(), account, sharedRoot);
  const clusterDir = reachableClusterDir(databaseDir, account, sharedRoot);
  const port = fixedPort ?? (await findFreePort());

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    // A directory without PG_VERSION is an initdb that was interrupted; it holds nothing worth keeping.
    rmSync(clusterDir, { recursive: true, force: true });
    const password = randomPassword();
    await initialise(path.join(binaries, 'bin', 'initdb'), clusterDir, password, account);
    writeFileSync(path.join(clusterDir, PASSWORD_FILE), password, { mode: 0o600 });
  }
  await stopOrphanedPostmaster(clusterDir);

  // The Unix socket goes in the cluster directory, which PostgreSQL keeps private to its own user: no
  // other local user can open it (in /tmp any could). Where that path is too long for a socket, there
  // is none, and clients use 127.0.0.1 with the password.
  const socketDir = `${clusterDir}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH ? clusterDir : '';
  const flags = ['-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir}`, '-c', 'max_connections=200'];
  if (!fsync) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  for (const [name, value] of Object.entries(settings)) flags.push('-c', `${name}=${value}`);
  const postgresBinary = path.join(binaries, 'bin', 'postgres');
  const postmaster = await startPostmaster(postgresBinary, clusterDir, flags, account, keepCoreFiles);

  let url: string;
  let socketHost: string;
  const connectionFile = path.join(path.dirname(databaseDir), CONNECTION_FILE);
  try {
    const password = await ensurePlazaRole(clusterDir, port, await ensurePassword(clusterDir, port));
    // Same machine, so a Unix socket where there is one: each round trip costs the client about a third
    // less CPU than loopback TCP, and a business commit makes three of them.
    socketHost = socketDir && existsSync(path.join(socketDir, `.s.PGSQL.${port}`)) ? `?host=${encodeURIComponent(socketDir)}` : '';
    url = `postgres://${PLAZA_ROLE}:${encodeURIComponent(password)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}${socketHost}`;
    // Lets `pnpm worker` join the database of a running `pnpm start` without configuration.
    mkdirSync(path.dirname(connectionFile), { recursive: true });
    rmSync(connectionFile, { force: true }); // so the mode below applies: the file holds the password
    writeFileSync(connectionFile, JSON.stringify({ url, pid: process.pid }), { mode: 0o600 });
  } catch (err) {
    await stopPostmaster(postmaster);
    throw err;
  }
  return {
    url,
    clusterDir,
    postgresBinary,
    superuserUrl: (database = EMBEDDED_DATABASE) => {
      const password = readFileSync(path.join(clusterDir, PASSWORD_FILE), 'utf8').trim();
      return `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}${socketHost}`;
    },
    trouble: () => postmaster.trouble,
    stop: async () => {
      await stopPostmaster(postmaster);
      rmSync(connectionFile, { force: true });
    },
  };
}

const CONNECTION_FILE = 'embedded-postgres.json';

/** The embedded database of a `pnpm start` still running on this machine, if there is one. */
export function readEmbeddedDatabaseUrl(dataDir: string): string | undefined {
  const file = path.join(dataDir, CONNECTION_FILE);
  if (!existsSync(file)) return undefined;
  const { url, pid } = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number };
  return isAlive(pid) ? url : undefined;
}
