import { execSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/platform/embedded-postgres.js';
import { postgresCrashBacktraces } from './helpers/crash-backtraces.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL where each test file creates its own database: a role that may create databases. */
    adminDatabaseUrl: string;
    /** The role Plaza connects as there: each test database is made for it (the embedded cluster's plain role). */
    plazaDatabaseUrl: string;
    /** A certificate for localhost and 127.0.0.1, issued by a CA every test process trusts. */
    tls: { cert: string; key: string; ca: string };
  }
}

/**
 * App URLs must be HTTPS, so tests serve apps over real TLS: a throwaway CA and a localhost
 * certificate, made with openssl. NODE_EXTRA_CA_CERTS is read when a Node process starts, and the
 * test workers start after this, so they (and the Plaza processes they spawn) trust the CA.
 */
function makeTestCertificates(dir: string) {
  const run = (args: string) => execSync(`openssl ${args}`, { cwd: dir, stdio: 'pipe' });
  run('req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=Plaza-Test-CA -keyout ca.key -out ca.crt');
  run('req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost -keyout server.key -out server.csr');
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run('x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.crt');
  process.env.NODE_EXTRA_CA_CERTS = path.join(dir, 'ca.crt');
  return { cert: readFileSync(path.join(dir, 'server.crt'), 'utf8'), key: readFileSync(path.join(dir, 'server.key'), 'utf8'), ca: readFileSync(path.join(dir, 'ca.crt'), 'utf8') };
}

/** A server process of the shared cluster crashed: ended by SIGILL, SIGABRT, SIGBUS, SIGFPE or SIGSEGV, never by a test (which kills only servers of its own). */
const CRASHED = /terminated by signal (4|6|7|8|11):/;

/** One real PostgreSQL for the whole run: TEST_DATABASE_URL if given, else an embedded one in /tmp. */
export default async function setup(project: TestProject) {
  const tlsDir = mkdtempSync(path.join(tmpdir(), 'plaza-test-tls-'));
  project.provide('tls', makeTestCertificates(tlsDir));
  if (process.env.TEST_DATABASE_URL) {
    project.provide('adminDatabaseUrl', process.env.TEST_DATABASE_URL);
    project.provide('plazaDatabaseUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  // /tmp is traversable by the postgres user, unlike a checkout under /root.
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-test-pg-'));
  chmodSync(dir, 0o755);
  const database = await startEmbeddedPostgres({ databaseDir: path.join(dir, 'pg'), fsync: false, keepCoreFiles: true });
  // The superuser makes the databases; Plaza uses each as the role it uses in production, which owns it and nothing more.
  project.provide('adminDatabaseUrl', database.superuserUrl());
  project.provide('plazaDatabaseUrl', database.url);
  return async () => {
    // A crash of this one server fails whichever tests were using it at that moment, each with a symptom of its
    // own (503s, "not yet accepting connections", an extra attempt); said once here, at the end of the run's output.
    const trouble = database.trouble();
    if (trouble.length > 0)
      console.error(`The tests' shared PostgreSQL reported trouble during this run; failures near these times may be its, not the tests':\n${trouble.join('\n')}`);
    for (const backtrace of postgresCrashBacktraces(database)) console.error(`A crashed PostgreSQL process's backtrace, ${backtrace}`);
    // For tools/test/run-vitest.mjs, which runs the failed files again only after a crash of this server (not a test's own kill).
    const crashes = trouble.filter((line) => CRASHED.test(line));
    if (process.env.PLAZA_TEST_DATABASE_CRASHES && crashes.length > 0) writeFileSync(process.env.PLAZA_TEST_DATABASE_CRASHES, JSON.stringify(crashes));
    await database.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
