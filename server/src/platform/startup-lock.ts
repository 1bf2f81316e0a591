/** Any connection that can run a query: a pg client, or a TypeORM query runner. */
interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * One PostgreSQL advisory lock (an arbitrary constant; nothing else in the database uses it) for the
 * schema work a process does as it starts: Plaza's migrations and the job store's tables. Neither
 * TypeORM nor Agenda's PostgreSQL backend guards its DDL, so processes starting together on an empty
 * database raced: both ran a migration's CREATE TABLE, or Agenda's CREATE OR REPLACE FUNCTION, and the
 * loser exited on a duplicate key in the catalog.
 */
const SCHEMA_SETUP_LOCK = 7_146_993_012;

/** Runs `setup` holding the schema-setup lock on `session`, a connection kept for the whole of it. */
export async function whileHoldingSchemaLock<T>(session: Queryable, setup: () => Promise<T>): Promise<T> {
  await session.query('SELECT pg_advisory_lock($1)', [SCHEMA_SETUP_LOCK]);
  try {
    return await setup();
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [SCHEMA_SETUP_LOCK]);
  }
}
