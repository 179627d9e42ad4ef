import { fillPlaceholders, is, type Placeholder, SQL } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "../../d1/schema";

export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

/**
 * One drizzle instance per D1 binding per isolate: building one walks the whole schema (~30 µs),
 * and it holds no per-request state.
 */
const instances = new WeakMap<D1Database, Db>();

export function openDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}

export type Row = Record<string, unknown>;
/** SQL with its parameters already bound: what a CompiledStatement produces. */
export interface BoundStatement {
  sql: string;
  params: unknown[];
}
/** A drizzle query builder (anything with toSQL), a `sql` fragment, or a bound compiled statement. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } } | BoundStatement;

const dialect = new SQLiteAsyncDialect();

function toQuery(statement: Statement): BoundStatement {
  if (is(statement, SQL)) return dialect.sqlToQuery(statement);
  if ("toSQL" in statement) return statement.toSQL();
  return statement;
}

/** A value or a named placeholder, for statements written once and compiled once. */
export type Bindable<T> = T | Placeholder;

/**
 * SQL built and compiled once per isolate, with `sql.placeholder(name)` where values go; each
 * call binds values by name. For the hottest statements, where drizzle's per-call query building
 * costs more than the statement itself.
 */
export class CompiledStatement {
  private compiled: BoundStatement | undefined;

  constructor(private readonly build: () => Statement) {}

  bind(values: Record<string, unknown>): BoundStatement {
    this.compiled ??= toQuery(this.build());
    return { sql: this.compiled.sql, params: fillPlaceholders(this.compiled.params, values) };
  }
}

/**
 * Runs statements as one D1 batch — one round trip, one transaction — and returns each
 * statement's raw rows (column names as in SQL). drizzle's own batch cannot take `sql`
 * fragments with parameters, which the outbox statements need.
 */
export async function batch(db: Db, statements: readonly Statement[]): Promise<Row[][]> {
  const prepared = statements.map((statement) => {
    const query = toQuery(statement);
    return db.$client.prepare(query.sql).bind(...query.params);
  });
  const results = await db.$client.batch<Row>(prepared);
  return results.map((result) => result.results ?? []);
}
