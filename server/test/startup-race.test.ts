import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { connectPlazaDatabase } from '../src/app/entities.js';
import { createJobRuntime } from '../src/platform/jobs.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { createTestDatabase } from './helpers/database.js';

const PROCESSES = 4;

describe('processes starting together on an empty database', () => {
  // Two workers deployed at once used to race on the DDL: one of them exited on a duplicate key in
  // PostgreSQL's catalog ("duplicate key value violates unique constraint pg_proc_proname_args_nsp_index", Agenda's trigger function).
  it('all come up: the migrations run once and the job store is created once, whoever starts first', async () => {
    const databaseUrl = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: databaseUrl });
    const sources = await Promise.all(Array.from({ length: PROCESSES }, () => connectPlazaDatabase(databaseUrl, 2)));
    const runtimes = await Promise.all(Array.from({ length: PROCESSES }, (_, i) => createJobRuntime(config, databaseUrl, `starter-${i}`, { poolSize: 2 })));
    try {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows: migrations } = await client.query('SELECT name FROM schema_migrations ORDER BY id');
      const { rows: jobTables } = await client.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'agenda_jobs'`);
      await client.end();
      expect(migrations.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
      expect(jobTables[0].n).toBe(1);
      // Every process can use the job store it was handed.
      for (const [i, runtime] of runtimes.entries()) await runtime.agenda.now(`noop-${i}`, {});
    } finally {
      await Promise.all(runtimes.map((r) => r.close()));
      await Promise.all(sources.map((s) => s.destroy()));
    }
  }, 60_000);
});
