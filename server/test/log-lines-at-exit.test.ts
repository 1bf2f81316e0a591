import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { createTestDatabase } from './helpers/database.js';
import { TEST_ENCRYPTION_KEY } from './helpers/plaza.js';
import { startPlazaProcess, type PlazaProcess } from './helpers/process.js';

// Log lines are gathered over a turn of the event loop and written at its end (platform/logger.ts), not one write
// per line: a process that exits before a turn ends must still write what that turn gathered, however it exits.

type LogLine = Record<string, unknown>;

const REQUESTS = 120;

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await createTestDatabase();
});

const startPlaza = async (env: Record<string, string> = {}) =>
  startPlazaProcess({
    DATABASE_URL: databaseUrl,
    PORT: String(await findFreePort()),
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    WEB_DIST_DIR: '/nonexistent',
    RUN_WORKER: 'false',
    ...env,
  });

const lines = (plaza: PlazaProcess): LogLine[] =>
  plaza
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);

/** The floor's request with its own request id, on a connection of its own; resolves with the status. */
function floorRequest(url: string, requestId: string): Promise<number> {
  const body = JSON.stringify({ query: '{ __typename }' });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/graphql`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': requestId } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** REQUESTS floor requests, all at once, each answered 200; returns their request ids. */
async function sendRequests(url: string, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: REQUESTS }, (_, i) => `${prefix}-${i}`);
  const statuses = await Promise.all(ids.map((id) => floorRequest(url, id)));
  expect(statuses.filter((status) => status === 200)).toHaveLength(REQUESTS);
  return ids;
}

/** How many access lines each request id has. */
function accessLinesOf(plaza: PlazaProcess, ids: string[]): number[] {
  const all = lines(plaza).filter((line) => line.msg === 'request');
  return ids.map((id) => all.filter((line) => line.requestId === id).length);
}

describe('log lines when a Plaza process exits', () => {
  it('stopped with SIGTERM: every request has its access line, and the last line of the stop is there', async () => {
    const plaza = await startPlaza();
    const ids = await sendRequests(plaza.url, 'sigterm');
    expect(await plaza.stop('SIGTERM')).toBe(0);

    expect(accessLinesOf(plaza, ids)).toEqual(ids.map(() => 1));
    expect(lines(plaza).filter((line) => line.msg === 'Plaza shutting down')).toHaveLength(1);
    // Each line whole: every line parsed as JSON above, and the access lines kept their fields.
    expect(lines(plaza).find((line) => line.requestId === ids[0])).toMatchObject({ level: 30, method: 'POST', path: '/graphql', status: 200, msg: 'request' });
  }, 90_000);

  /**
   * Runs `work` while a store query waits for a lock on apps this test holds (once it waits), then lets the lock go.
   * The query keeps its database connection checked out: closing the pool waits for it.
   */
  async function whileAQueryIsHeld(plaza: PlazaProcess, work: () => Promise<void>): Promise<void> {
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE apps IN ACCESS EXCLUSIVE MODE');
      const body = JSON.stringify({ query: '{ storeApps(first: 5) { edges { node { id } } } }' });
      // Left waiting on the lock: its answer never comes, since the process exits under it.
      void fetch(`${plaza.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch(() => {});
      const waiting = async () => (await locker.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'apps'::regclass`)).rows[0]!.n;
      await expect.poll(waiting, { timeout: 20_000 }).toBe(1);
      await work();
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  }

  it('its database holding a query past the grace: exits at the grace, every request has its access line, and the step it left is named', async () => {
    const plaza = await startPlaza({ SHUTDOWN_GRACE: '1s' });
    const ids = await sendRequests(plaza.url, 'grace');
    // Closing the pool waits for the held query: cut at the grace's end.
    await whileAQueryIsHeld(plaza, async () => {
      const started = Date.now();
      expect(await plaza.stop('SIGTERM')).toBe(0);
      // Well before the hard deadline (SHUTDOWN_GRACE + 15 s).
      expect(Date.now() - started).toBeLessThan(15_000);
    });

    expect(accessLinesOf(plaza, ids)).toEqual(ids.map(() => 1));
    const left = lines(plaza).filter((line) => line.msg === 'shutdown: left unfinished at the end of the grace (the database may be unreachable)');
    expect(left.map((line) => line.step)).toContain('the database pool');
  }, 120_000);

  it('told twice to stop: exits at once, every request has its access line, and the line that says why it exits is there', async () => {
    const plaza = await startPlaza({ SHUTDOWN_GRACE: '30s' });
    const ids = await sendRequests(plaza.url, 'twice');
    // The first stop waits out its 30 s grace for the held query; the second signal does not wait for it.
    await whileAQueryIsHeld(plaza, async () => {
      plaza.child.kill('SIGTERM');
      await expect.poll(() => lines(plaza).some((line) => line.msg === 'Plaza shutting down'), { timeout: 20_000 }).toBe(true);
      const started = Date.now();
      expect(await plaza.stop('SIGTERM')).toBe(1);
      expect(Date.now() - started).toBeLessThan(15_000);
    });

    expect(accessLinesOf(plaza, ids)).toEqual(ids.map(() => 1));
    expect(lines(plaza).filter((line) => line.msg === 'Plaza told again to stop; exiting now')).toHaveLength(1);
  }, 120_000);

  it('a stop that hangs past its hard deadline: exits with 1 and the line that says why is written', async () => {
    const shutdown = pathToFileURL(path.join(REPO_ROOT, 'server/dist/platform/shutdown.js')).href;
    // A stop that never ends (something it waits for hangs, past every step's own bound), and a hard deadline of 300 ms.
    const script = `import { stopOnSignals } from ${JSON.stringify(shutdown)};
      stopOnSignals('Plaza', Promise.resolve({ stop: () => new Promise(() => {}) }), 300);
      setInterval(() => {}, 1000);
      process.stdout.write('ready\\n');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    await expect.poll(() => stdout.includes('ready'), { timeout: 20_000 }).toBe(true);
    child.kill('SIGTERM');

    expect(await closed).toBe(1);
    const written = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    expect(written.map((line) => line.msg)).toEqual(['Plaza shutting down', 'Plaza did not stop in time; exiting']);
    expect(written[1]).toMatchObject({ level: 50, hardDeadlineMs: 300 });
  }, 60_000);

  it('after an uncaught exception: the lines logged in the turn that threw are written', async () => {
    const logger = pathToFileURL(path.join(REPO_ROOT, 'server/dist/platform/logger.js')).href;
    // Lines logged in the same turn as the throw: the turn never reaches its end, only the process's exit.
    const script = `import { logger } from ${JSON.stringify(logger)};
      setTimeout(() => { for (let i = 0; i < ${REQUESTS}; i++) logger.info({ i }, 'before the crash'); throw new Error('crash'); }, 10);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    expect(code).toBe(1);
    expect(stderr).toContain('Error: crash');
    const written = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogLine);
    expect(written.map((line) => line.i)).toEqual(Array.from({ length: REQUESTS }, (_, i) => i));
  });

  it('lines beyond the bound a slow stdout may hold are counted and reported, not silently lost', async () => {
    const logger = pathToFileURL(path.join(REPO_ROOT, 'server/dist/platform/logger.js')).href;
    // Far more than LOG_BUFFER_LIMIT (16 MiB) in one turn: the first write is under way, the rest waits or is dropped.
    const total = 200_000;
    const script = `import { logger } from ${JSON.stringify(logger)};
      const padding = 'x'.repeat(100);
      for (let i = 0; i < ${total}; i++) logger.info({ i, padding }, 'burst');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    expect(code).toBe(0);
    const written = Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogLine);
    const burst = written.filter((line) => line.msg === 'burst');
    const reports = written.filter((line) => line.msg === 'log lines dropped: stdout did not keep up');
    expect(burst.length).toBeLessThan(total);
    expect(reports).toHaveLength(1);
    expect(burst.length + (reports[0]!.dropped as number)).toBe(total);
  }, 60_000);
});
