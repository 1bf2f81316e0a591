import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { inject } from 'vitest';
import { MIGRATIONS_TABLE } from '../../src/platform/database.js';
import { MIGRATIONS } from '../../src/platform/migrations/index.js';

/**
 * A fresh, empty database on the run's PostgreSQL, owned by the role Plaza connects as (not a
 * superuser on the embedded cluster), and that role's URL to it; Plaza's migrations build its schema.
 */
export async function createTestDatabase(): Promise<string> {
  const url = new URL(inject('plazaDatabaseUrl'));
  const name = `plaza_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} OWNER ${admin.escapeIdentifier(decodeURIComponent(url.username))}`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** Where the migration named `name` stands in MIGRATIONS; -1 when there is none. */
export const migrationIndex = (name: string): number => MIGRATIONS.findIndex((m) => new m().name === name);

/**
 * A data source on `url` once `migrations` have run, each in its own transaction as Plaza runs them:
 * given the migrations before one, the schema that one starts from, to populate before it runs.
 */
export async function migratedDataSource(url: string, migrations: typeof MIGRATIONS): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'postgres', url, migrations, migrationsTableName: MIGRATIONS_TABLE });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    return dataSource;
  } catch (err) {
    await dataSource.destroy();
    throw err;
  }
}

/** A connection of its own to `url` for `work`, closed after it whatever `work` does. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
