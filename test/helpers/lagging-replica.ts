/**
 * A D1 binding with a read replica that lags, for proving read-your-writes (Miniflare has no replicas).
 * Two real local databases: the primary (the Worker's DB) and the replica (LAGGING_REPLICA, the same
 * migrations). Every write runs on the primary and joins a log; the replica replays that log only
 * when a session STARTS at a bookmark it has not reached yet, and only up to that bookmark. So:
 * - `withSession("first-unconstrained")` (or no bookmark) reads the replica as it is: stale;
 * - `withSession(bookmark)` brings the replica up to exactly that bookmark, then reads it;
 * - `withSession("first-primary")` and the plain binding read the primary;
 * - after a session's own write, its later reads go to the primary (a session is sequentially
 *   consistent; the replica is not moved by it).
 * A read that ignores the bookmark therefore misses the write. Bookmarks are the log's length,
 * zero-padded, so they order as strings, as D1's do. Writes must all go through this binding
 * (create users with `insertUser`) so the replica replays the same history and gets the same ids.
 */
import { applyD1Migrations, env } from "cloudflare:test";
import { generateToken, hashToken } from "../../workers/auth/tokens";

type Target = "primary" | "replica";

interface Bound {
  sql: string;
  params: unknown[];
}

/** Every statement the double ran: where it ran and which session (index into `sessions`, or -1 for the plain binding). */
export interface Served {
  target: Target;
  sql: string;
  session: number;
}

function isRead(sql: string): boolean {
  return /^\s*select\b/i.test(sql) || (/^\s*with\b/i.test(sql) && !/\b(insert|update|delete|replace)\b/i.test(sql));
}

function bookmarkOf(position: number): string {
  return String(position).padStart(16, "0");
}

export class LaggingReplica {
  /** Write batches applied to the primary, in commit order; bookmark n = the first n applied. */
  private readonly log: Bound[][] = [];
  private replicaAt = 0;
  /** How each session started: a bookmark or a constraint. */
  readonly sessions: string[] = [];
  readonly served: Served[] = [];

  private constructor(
    private readonly primary: D1Database,
    private readonly replica: D1Database,
  ) {}

  static async create(): Promise<LaggingReplica> {
    await applyD1Migrations(env.LAGGING_REPLICA, env.TEST_MIGRATIONS);
    return new LaggingReplica(env.DB, env.LAGGING_REPLICA);
  }

  /** The bookmark of the latest write on the primary. */
  get head(): string {
    return bookmarkOf(this.log.length);
  }

  /** The D1 binding the Worker under test gets. */
  binding(): D1Database {
    const plain = new DoubleSession(this, -1, "first-primary");
    return {
      prepare: (sql) => plain.prepare(sql),
      batch: (statements) => plain.batch(statements),
      exec: (query) => this.primary.exec(query),
      withSession: (constraintOrBookmark) => this.startSession(constraintOrBookmark ?? "first-unconstrained"),
      dump: () => this.primary.dump(),
    };
  }

  /** A user and an API token, written through the primary like every other write. */
  async insertUser(name = `user-${crypto.randomUUID().slice(0, 8)}`): Promise<{ id: number; token: string }> {
    const db = this.binding();
    const user = await db.prepare("INSERT INTO users (name) VALUES (?) RETURNING id").bind(name).first<{ id: number }>();
    const token = generateToken();
    await db
      .prepare("INSERT INTO api_tokens (user_id, token_hash, label) VALUES (?, ?, 'test')")
      .bind(user!.id, await hashToken(token))
      .run();
    return { id: user!.id, token };
  }

  private startSession(constraintOrBookmark: string): D1DatabaseSession {
    const index = this.sessions.push(constraintOrBookmark) - 1;
    return new DoubleSession(this, index, constraintOrBookmark);
  }

  /** Replays the log on the replica up to `bookmark` (never back, never further). */
  async catchUp(bookmark: string): Promise<void> {
    while (this.replicaAt < this.log.length && bookmarkOf(this.replicaAt).localeCompare(bookmark) < 0) {
      const writes = this.log[this.replicaAt]!;
      this.replicaAt += 1;
      await this.replica.batch(writes.map((write) => this.replica.prepare(write.sql).bind(...write.params)));
    }
  }

  async execute<R>(target: Target, statements: Bound[], session: number, run: (db: D1Database) => Promise<R>): Promise<R> {
    for (const statement of statements) this.served.push({ target, sql: statement.sql, session });
    const result = await run(target === "primary" ? this.primary : this.replica);
    const writes = statements.filter((statement) => !isRead(statement.sql));
    if (target === "primary" && writes.length > 0) this.log.push(writes);
    return result;
  }
}

/** A session of the double (and, with index -1, its plain always-primary binding). */
class DoubleSession implements D1DatabaseSession {
  private bookmark: string | null;
  private wrote = false;
  private started = false;

  constructor(
    private readonly double: LaggingReplica,
    private readonly index: number,
    private readonly constraint: string,
  ) {
    this.bookmark = constraint === "first-primary" || constraint === "first-unconstrained" ? null : constraint;
  }

  prepare(sql: string): D1PreparedStatement {
    return new DoubleStatement(this, { sql, params: [] });
  }

  async batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const bound = statements.map((statement) => {
      if (!(statement instanceof DoubleStatement)) throw new Error("the lagging replica batches only its own statements");
      return statement.bound;
    });
    return this.run(bound, (db) => db.batch<T>(bound.map((statement) => db.prepare(statement.sql).bind(...statement.params))));
  }

  getBookmark(): string | null {
    return this.index === -1 ? null : this.bookmark;
  }

  async run<R>(statements: Bound[], execute: (db: D1Database) => Promise<R>): Promise<R> {
    const reads = statements.every((statement) => isRead(statement.sql));
    let target: "primary" | "replica" = "primary";
    if (reads && this.index !== -1 && this.constraint !== "first-primary" && !this.wrote) {
      // Only a session's start moves the replica, and only to the bookmark it started at.
      if (!this.started && this.bookmark !== null) await this.double.catchUp(this.bookmark);
      target = "replica";
    }
    this.started = true;
    const result = await this.double.execute(target, statements, this.index, execute);
    if (!reads) {
      this.wrote = true;
      this.bookmark = this.double.head;
    }
    return result;
  }
}

class DoubleStatement implements D1PreparedStatement {
  constructor(
    private readonly session: DoubleSession,
    readonly bound: Bound,
  ) {}

  bind(...values: unknown[]): D1PreparedStatement {
    return new DoubleStatement(this.session, { sql: this.bound.sql, params: values });
  }

  private on(db: D1Database): D1PreparedStatement {
    return db.prepare(this.bound.sql).bind(...this.bound.params);
  }

  first<T = unknown>(colName: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  first<T>(colName?: string): Promise<T | null> {
    return this.session.run([this.bound], (db) => (colName === undefined ? this.on(db).first<T>() : this.on(db).first<T>(colName)));
  }

  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.session.run([this.bound], (db) => this.on(db).run<T>());
  }

  all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.session.run([this.bound], (db) => this.on(db).all<T>());
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<[string[], ...T[]] | T[]> {
    if (options?.columnNames === true) return this.session.run([this.bound], (db) => this.on(db).raw<T>({ columnNames: true }));
    return this.session.run([this.bound], (db) => this.on(db).raw<T>());
  }
}
