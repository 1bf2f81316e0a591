import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { Readiness } from '../src/platform/readiness.js';
import { startTestPlaza } from './helpers/plaza.js';

/**
 * The job store's check as the job runtime makes it on PostgreSQL (`SELECT 1` on its pool). A pool
 * rather than a whole runtime: Agenda connects as soon as it is constructed and leaves that promise's
 * rejection unhandled, which would fail the run.
 */
function jobStoreAt(port: number) {
  const pool = new pg.Pool({ connectionString: `postgres://plaza:plaza@127.0.0.1:${port}/plaza_jobs`, max: 1, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  // Not awaited: a connection the silent server holds open ends only when that server closes; nor checked,
  // as the test has ended and its pool's errors are ignored above.
  onTestFinished(() => void pool.end().catch(() => undefined));
  return () => pool.query('SELECT 1');
}

const readyz = async (url: string) => {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.json() };
};

describe('/readyz', () => {
  it('checks the database and, in a process that runs the job worker, the job store', async () => {
    const plaza = await startTestPlaza();
    expect(await readyz(plaza.url)).toEqual({ status: 200, body: { status: 'ready', database: 'ok', jobStore: 'ok' } });
  });

  it('checks the database alone in a process without a worker (RUN_WORKER=false)', async () => {
    const plaza = await startTestPlaza({ RUN_WORKER: 'false' });
    expect(await readyz(plaza.url)).toEqual({ status: 200, body: { status: 'ready', database: 'ok' } });
  });

  it('answers 503 naming the part that is down when the job store cannot be reached', async () => {
    const plaza = await startTestPlaza({ RUN_WORKER: 'false' });
    // A job store on a port nothing listens on (refused at once).
    plaza.services.readiness.add('jobStore', jobStoreAt(await findFreePort()));
    expect(await readyz(plaza.url)).toEqual({ status: 503, body: { status: 'not ready', database: 'ok', jobStore: 'unreachable' } });
  });

  it('counts a part that does not answer within its time limit as unreachable, without hanging the probe', async () => {
    // Accepts connections and never says a word: a PostgreSQL behind a black-holing network.
    const silent: Socket[] = [];
    const server = createServer((socket) => void silent.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(async () => {
      silent.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    });
    const plaza = await startTestPlaza({ RUN_WORKER: 'false' });
    const readiness = new Readiness();
    readiness.add('database', () => plaza.services.db.query('SELECT 1'));
    readiness.add('jobStore', jobStoreAt((server.address() as { port: number }).port));
    const started = Date.now();
    expect(await readiness.check()).toEqual({ ready: false, parts: { database: 'ok', jobStore: 'unreachable' } });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
