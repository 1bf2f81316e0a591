import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { createTestDatabase } from './helpers/database.js';
import { startPlazaProcess } from './helpers/process.js';
import { runBuiltToExit } from './helpers/script-process.js';

const dirs: string[] = [];
const held: Server[] = [];
afterAll(async () => {
  for (const server of held) await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-boot-'));
  chmodSync(dir, 0o755); // the postgres user must reach the embedded cluster
  dirs.push(dir);
  return dir;
}

/** `node server/dist/<entry>` (as `pnpm start`) run to its exit, with none of this run's database or job store settings. */
function runToExit(env: Record<string, string>, entry = 'main.js'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'NODE_ENV', 'JOBS_BACKEND', 'MONGODB_URL']) delete inherited[name];
  return runBuiltToExit(entry, { ...inherited, LOG_LEVEL: 'info', WEB_DIST_DIR: '/nonexistent', ...env });
}

/** A PostgreSQL process still running on the cluster in `dir`, if any (its postmaster.pid names it). */
function postgresLeftRunning(dir: string): number | undefined {
  const pidFile = path.join(dir, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

function expectOneClearLine(run: { stdout: string; stderr: string }, reason: RegExp) {
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(reason);
  // No stack trace anywhere: not on stderr, not in the log lines.
  expect(`${run.stdout}\n${run.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

describe('a failed start', () => {
  it('with an unreachable MongoDB job store: exits non-zero with one clear line and stops its embedded PostgreSQL', async () => {
    const dir = dataDir();
    const closedPort = await findFreePort(); // free a moment ago, nothing listens there: no MongoDB can exist here
    const run = await runToExit({ DATA_DIR: dir, PORT: String(await findFreePort()), JOBS_BACKEND: 'mongodb', MONGODB_URL: `mongodb://127.0.0.1:${closedPort}/plaza` });

    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expectOneClearLine(run, new RegExp(`^Plaza cannot start: the MongoDB job store at mongodb://127\\.0\\.0\\.1:${closedPort}/plaza cannot be reached`));
    // The embedded PostgreSQL did start (its cluster is there), and was stopped again.
    expect(existsSync(path.join(dir, 'pg', 'PG_VERSION'))).toBe(true);
    expect(postgresLeftRunning(dir)).toBeUndefined();
  });

  it('on a port already in use: exits non-zero with one clear line naming the port, leaving nothing running', async () => {
    const dir = dataDir();
    const taken = createServer();
    held.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    const run = await runToExit({ DATA_DIR: dir, PORT: String(port) });

    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expectOneClearLine(run, new RegExp(`^Plaza cannot start: port ${port} is already in use`));
    expect(postgresLeftRunning(dir)).toBeUndefined();
  });

  it('of a worker with an unreachable MongoDB job store: one clear line, no stack', async () => {
    const closedPort = await findFreePort();
    const run = await runToExit(
      { DATABASE_URL: await createTestDatabase(), JOBS_BACKEND: 'mongodb', MONGODB_URL: `mongodb://127.0.0.1:${closedPort}/plaza`, DATA_DIR: dataDir() },
      'worker.js',
    );
    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expectOneClearLine(run, /^Plaza worker cannot start: the MongoDB job store at .* cannot be reached/);
  });
});

describe('production on the embedded PostgreSQL', () => {
  it('warns at start that the embedded database is for one machine and small installations', async () => {
    const plaza = await startPlazaProcess({
      NODE_ENV: 'production',
      DATA_DIR: dataDir(),
      PORT: String(await findFreePort()),
      SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      WEB_DIST_DIR: '/nonexistent',
    });
    const warnings = plaza
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level === 40);
    expect(warnings.map((w) => w.msg)).toContainEqual(expect.stringMatching(/embedded PostgreSQL is meant for one machine and a small installation.*DATABASE_URL/));
    expect(await plaza.stop('SIGTERM')).toBe(0);
  });
});
