/**
 * Writes a migration holding the difference between the entities and what the existing migrations
 * build: starts a throwaway embedded PostgreSQL, runs the migrations, asks TypeORM for the rest.
 * Usage: pnpm --filter @plaza/server build && node server/dist/scripts/generate-migration.js AddThing
 */
import 'reflect-metadata';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.js';
import { connectPlazaDatabase } from '../app/entities.js';
import { REPO_ROOT } from '../config.js';

const name = process.argv[2];
if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
  console.error('usage: generate-migration.js <PascalCaseName>');
  process.exit(2);
}
const dir = mkdtempSync(path.join(tmpdir(), 'plaza-migration-'));
chmodSync(dir, 0o755);
const database = await startEmbeddedPostgres({ databaseDir: path.join(dir, 'pg'), fsync: false });
const dataSource = await connectPlazaDatabase(database.url);
const { upQueries, downQueries } = await dataSource.driver.createSchemaBuilder().log();
await dataSource.destroy();
await database.stop();
if (upQueries.length === 0) {
  console.log('entities and migrations already agree; nothing to write');
  process.exit(0);
}
const timestamp = Date.now();
const className = `${name}${timestamp}`;
const quote = (sql: string) => '`' + sql.replace(/`/g, '\\`') + '`';
const body = `import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ${className} implements MigrationInterface {
  name = '${className}';

  async up(queryRunner: QueryRunner): Promise<void> {
${upQueries.map((q) => `    await queryRunner.query(${quote(q.query)});`).join('\n')}
  }

  async down(queryRunner: QueryRunner): Promise<void> {
${downQueries
  .reverse()
  .map((q) => `    await queryRunner.query(${quote(q.query)});`)
  .join('\n')}
  }
}
`;
const file = path.join(REPO_ROOT, 'server/src/platform/migrations', `${timestamp}-${name}.ts`);
writeFileSync(file, body);
console.log(`wrote ${path.relative(REPO_ROOT, file)}; add ${className} to MIGRATIONS in migrations/index.ts`);
process.exit(0);
