import type pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';
import { connectionError, logger } from './logger.js';
import { AfterCommitHooks } from './after-commit.js';
import { readTimestamptzFast } from './timestamptz.js';
import { buildConcurrentIndexes } from './migrations/concurrent-indexes.js';
import { applyContractSteps, pendingContractSteps } from './migrations/contract-steps.js';
import { whileHoldingSchemaLock } from './startup-lock.js';
import { traceQueries } from './tracing.js';

/** The entity classes of every feature; the wiring (`app/entities.ts`) lists them. */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

/** Where TypeORM records which migrations have run. */
export const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * The TypeORM data source. The schema only ever changes through MIGRATIONS (never `synchronize`);
 * a test checks that the migrations produce exactly what the entities describe.
 */
export function createDataSource(url: string, entities: EntityList, poolSize = 20): DataSource {
  readTimestamptzFast();
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    subscribers: [AfterCommitHooks],
    synchronize: false,
    logging: false,
    extra: { max: poolSize, connectionTimeoutMillis: 10_000 },
  });
}

/**
 * The pg pool under TypeORM's data source, typed: the one place that reaches into TypeORM's driver for
 * it. The wiring hands it to the hot paths, which run named (prepared) statements TypeORM cannot
 * issue; sharing TypeORM's pool keeps DATABASE_POOL_SIZE the process's whole connection count.
 */
export function databasePool(dataSource: DataSource): pg.Pool {
  return (dataSource.driver as unknown as { master: pg.Pool }).master;
}

export async function connectDatabase(url: string, entities: EntityList, poolSize?: number): Promise<DataSource> {
  const dataSource = createDataSource(url, entities, poolSize);
  await dataSource.initialize();
  // A PostgreSQL restart kills idle pooled connections; log it and let the pool reconnect instead of crashing.
  databasePool(dataSource).on('error', (err) => logger.warn({ error: connectionError(err) }, 'a pooled database connection failed; the pool will reconnect'));
  // Statements made inside a span (a GraphQL request's, a delivery's) become its children; nothing when not tracing.
  traceQueries(databasePool(dataSource));
  const session = dataSource.createQueryRunner();
  let builtFromNothing: boolean;
  try {
    const ran = await whileHoldingSchemaLock(session, () => dataSource.runMigrations({ transaction: 'each' }));
    if (ran.length) logger.info({ migrations: ran.map((m) => m.name) }, 'database migrated');
    builtFromNothing = ran.length === MIGRATIONS.length;
  } finally {
    await session.release();
  }
  // After the schema-setup lock is released (concurrent-indexes.ts says why).
  const built = await buildConcurrentIndexes(dataSource);
  if (built.length) logger.info({ indexes: built }, 'indexes built');
  if (builtFromNothing) {
    // No process of an earlier release ever used this database: what only earlier releases need goes at once.
    const contracted = await applyContractSteps(dataSource);
    if (contracted.length) logger.info({ removed: contracted }, 'what only earlier releases used is removed (new database)');
  } else {
    const pending = await pendingContractSteps(dataSource);
    if (pending.length)
      logger.info(
        { pending: pending.map((step) => `${step.name}: ${step.why}`) },
        'the previous release may still run beside this one: once none of its processes runs, `pnpm migrate:contract` removes what only it used',
      );
  }
  return dataSource;
}
