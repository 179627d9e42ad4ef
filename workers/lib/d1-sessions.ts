/**
 * D1 read replication through the Sessions API (decision 0065). Two ways to read:
 * - `anyReplicaD1`: every statement in a session of its own that may be served by any replica, for
 *   lookups whose caller confirms a miss on the primary (the token lookups).
 * - `ReadYourWritesD1`: one session per request, started at the bookmark of its user's latest
 *   acknowledged write (a `BookmarkFloor`, kept outside the isolate), so a read on a replica never
 *   misses what that user wrote before; a write goes to the primary, and its bookmark is recorded
 *   in the floor before the statement's promise resolves — before any answer can say it was done.
 * Both are D1Database-shaped, so drizzle and `lib/db.ts#batch` run on them unchanged.
 */

/** The later of two D1 bookmarks: D1 orders its bookmarks as strings (workerd's d1-api keeps the later one by the same rule). */
export function laterBookmark(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.localeCompare(b) < 0 ? b : a;
}

/**
 * Whether a statement may write. Only a SELECT (or a WITH … SELECT naming no write verb) is known to
 * read only; anything else counts as a write, because a write taken for a read would lose its bookmark.
 */
export function mayWrite(sql: string): boolean {
  const head = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase();
  if (head === "select") return false;
  if (head === "with") return /\b(insert|update|delete|replace)\b/i.test(sql);
  return true;
}

/** Where one user's latest acknowledged write is remembered, across isolates. */
export interface BookmarkFloor {
  /** The bookmark of the user's latest acknowledged write, or null when none is known. */
  latest(): Promise<string | null>;
  /** Records a write's bookmark; the floor keeps the later of it and the one it holds. */
  advance(bookmark: string): Promise<void>;
}

const anyReplica = new WeakMap<D1Database, D1Database>();

/** `d1` read through replicas: each statement (or batch) is a session of its own, first-unconstrained. */
export function anyReplicaD1(d1: D1Database): D1Database {
  let reads = anyReplica.get(d1);
  if (!reads) {
    reads = {
      prepare: (query) => d1.withSession("first-unconstrained").prepare(query),
      // A session's batch sends each statement's SQL and values, whichever session prepared it.
      batch: (statements) => d1.withSession("first-unconstrained").batch(statements),
      exec: (query) => d1.exec(query),
      withSession: (constraint) => d1.withSession(constraint),
      dump: () => d1.dump(),
    };
    anyReplica.set(d1, reads);
  }
  return reads;
}

/**
 * One request's D1 for one user. The session starts at the first statement, not before: a request
 * that never reads D1 never asks the floor. When the floor cannot be read the session starts on the
 * primary (always current); when a write's bookmark cannot be recorded, `onFloorError` hears of it
 * and the write still stands (it is committed).
 */
export class ReadYourWritesD1 implements D1Database {
  private session: Promise<D1DatabaseSession> | undefined;

  constructor(
    private readonly d1: D1Database,
    private readonly floor: BookmarkFloor,
    private readonly onFloorError: (error: unknown) => void,
  ) {}

  prepare(query: string): D1PreparedStatement {
    return new SessionStatement(this, query, []);
  }

  async batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const own = statements.map((statement) => {
      if (!(statement instanceof SessionStatement)) throw new Error("A batch on a request's D1 takes only statements it prepared");
      return statement;
    });
    const session = await this.started();
    const results = await session.batch<T>(own.map((statement) => statement.on(session)));
    if (own.some((statement) => mayWrite(statement.sql))) await this.recordWrite(session);
    return results;
  }

  /** Schema work, never a request's: on the primary. */
  exec(query: string): Promise<D1ExecResult> {
    return this.d1.exec(query);
  }

  withSession(constraintOrBookmark?: string): D1DatabaseSession {
    return this.d1.withSession(constraintOrBookmark);
  }

  dump(): Promise<ArrayBuffer> {
    return this.d1.dump();
  }

  /** Runs one statement in the request's session, recording its bookmark when it may have written. */
  async run<R>(sql: string, execute: (session: D1DatabaseSession) => Promise<R>): Promise<R> {
    const session = await this.started();
    const result = await execute(session);
    if (mayWrite(sql)) await this.recordWrite(session);
    return result;
  }

  private started(): Promise<D1DatabaseSession> {
    this.session ??= this.floor.latest().then(
      (bookmark) => this.d1.withSession(bookmark ?? "first-unconstrained"),
      (error: unknown) => {
        this.onFloorError(error);
        return this.d1.withSession("first-primary");
      },
    );
    return this.session;
  }

  private async recordWrite(session: D1DatabaseSession): Promise<void> {
    const bookmark = session.getBookmark();
    if (bookmark === null) return;
    try {
      await this.floor.advance(bookmark);
    } catch (error) {
      this.onFloorError(error);
    }
  }
}

/** A statement of a ReadYourWritesD1: its SQL and values, prepared on the request's session when it runs. */
class SessionStatement implements D1PreparedStatement {
  constructor(
    private readonly owner: ReadYourWritesD1,
    readonly sql: string,
    private readonly values: unknown[],
  ) {}

  on(session: D1DatabaseSession): D1PreparedStatement {
    return session.prepare(this.sql).bind(...this.values);
  }

  bind(...values: unknown[]): D1PreparedStatement {
    return new SessionStatement(this.owner, this.sql, values);
  }

  first<T = unknown>(colName: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  first<T>(colName?: string): Promise<T | null> {
    if (colName === undefined) return this.owner.run(this.sql, (session) => this.on(session).first<T>());
    return this.owner.run(this.sql, (session) => this.on(session).first<T>(colName));
  }

  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.owner.run(this.sql, (session) => this.on(session).run<T>());
  }

  all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.owner.run(this.sql, (session) => this.on(session).all<T>());
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<[string[], ...T[]] | T[]> {
    if (options?.columnNames === true) return this.owner.run(this.sql, (session) => this.on(session).raw<T>({ columnNames: true }));
    return this.owner.run(this.sql, (session) => this.on(session).raw<T>());
  }
}
