import { is, SQL } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "../../d1/schema";

export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

/** Cheap: a thin wrapper over the binding, made per request. */
export function openDb(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

export type Row = Record<string, unknown>;
/** A drizzle query builder (anything with toSQL) or a `sql` fragment. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

const dialect = new SQLiteAsyncDialect();

/**
 * Runs statements as one D1 batch — one round trip, one transaction — and returns each
 * statement's raw rows (column names as in SQL). drizzle's own batch cannot take `sql`
 * fragments with parameters, which the outbox statements need.
 */
export async function batch(db: Db, statements: readonly Statement[]): Promise<Row[][]> {
  const prepared = statements.map((statement) => {
    const query = is(statement, SQL) ? dialect.sqlToQuery(statement) : statement.toSQL();
    return db.$client.prepare(query.sql).bind(...query.params);
  });
  const results = await db.$client.batch<Row>(prepared);
  return results.map((result) => result.results ?? []);
}
