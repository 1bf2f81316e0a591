import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/platform/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL where each test file creates its own database. */
    adminDatabaseUrl: string;
  }
}

/** One real PostgreSQL for the whole run: TEST_DATABASE_URL if given, else an embedded one in /tmp. */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('adminDatabaseUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  // /tmp is traversable by the postgres user, unlike a checkout under /root.
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-test-pg-'));
  chmodSync(dir, 0o755);
  const database = await startEmbeddedPostgres({ databaseDir: path.join(dir, 'pg'), fsync: false });
  project.provide('adminDatabaseUrl', database.url);
  return async () => {
    await database.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
