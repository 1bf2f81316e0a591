import type { EntityManager } from 'typeorm';

interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs one of the delivery path's hot statements as a named prepared statement, so PostgreSQL parses
 * and plans it once per connection instead of on every call. Measured on the event insert: 1.3 ms
 * per call unprepared, 0.55 ms prepared, most of a business commit's database time. TypeORM cannot
 * name statements, so this talks to the pg connection underneath: the transaction's own connection
 * when the manager has one (the statement must commit with the caller's work), else the pool.
 * `name` must identify exactly one `text` for the life of the process.
 */
export async function queryPrepared<Row>(manager: EntityManager, name: string, text: string, values: unknown[]): Promise<Row[]> {
  const transactionConnection = manager.queryRunner?.isReleased === false ? (manager.queryRunner as unknown as { databaseConnection?: PgQueryable }).databaseConnection : undefined;
  if (manager.queryRunner && !transactionConnection) {
    // A query runner that has not connected yet: let TypeORM run it, unprepared but on the right connection.
    return manager.query(text, values);
  }
  const target = transactionConnection ?? (manager.connection.driver as unknown as { master: PgQueryable }).master;
  const result = await target.query({ name, text, values });
  return result.rows as Row[];
}
