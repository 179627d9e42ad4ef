/**
 * The concurrency gate for RAG queries: one instance per pipeline (idFromName(pipeline)) holds the
 * leases of the queries running in it. A Durable Object runs one method at a time and these methods
 * never await, so check-and-take is atomic under any number of concurrent callers. Leases live in
 * the object's SQLite storage with an expiry, so a Worker that dies mid-query frees its slot when
 * the lease lapses (query timeout + grace), and an evicted object forgets nothing.
 */
import { DurableObject } from "cloudflare:workers";

export type GateDecision =
  | { granted: true; in_flight: number }
  | { granted: false; in_flight: number; retry_after_ms: number };

export interface AcquireRequest {
  leaseId: string;
  limit: number;
  /** The lease lapses after this long even if never released. */
  ttlMs: number;
}

/** Never tell a client to come back sooner than this. */
const MIN_RETRY_AFTER_MS = 50;
/** Weight of the newest duration in the running average. */
const AVERAGE_WEIGHT = 0.2;

export class RagGate extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS leases (id TEXT PRIMARY KEY, acquired_at INTEGER NOT NULL, expires_at INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS stats (key TEXT PRIMARY KEY, value REAL NOT NULL)`);
  }

  acquire({ leaseId, limit, ttlMs }: AcquireRequest): GateDecision {
    const now = Date.now();
    this.sql.exec("DELETE FROM leases WHERE expires_at <= ?", now);
    const inFlight = this.count();
    if (inFlight >= limit) return { granted: false, in_flight: inFlight, retry_after_ms: this.retryAfter(now, ttlMs) };
    this.sql.exec("INSERT OR REPLACE INTO leases (id, acquired_at, expires_at) VALUES (?, ?, ?)", leaseId, now, now + ttlMs);
    return { granted: true, in_flight: inFlight + 1 };
  }

  /** Frees the slot; releasing an unknown or lapsed lease is a no-op. */
  release(leaseId: string): void {
    const now = Date.now();
    const row = this.sql.exec<{ acquired_at: number }>("DELETE FROM leases WHERE id = ? RETURNING acquired_at", leaseId).toArray()[0];
    if (!row) return;
    const duration = now - row.acquired_at;
    const previous = this.averageDuration();
    const next = previous === undefined ? duration : previous + AVERAGE_WEIGHT * (duration - previous);
    this.sql.exec("INSERT OR REPLACE INTO stats (key, value) VALUES ('average_ms', ?)", next);
  }

  inFlight(): number {
    this.sql.exec("DELETE FROM leases WHERE expires_at <= ?", Date.now());
    return this.count();
  }

  private count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM leases").one().n;
  }

  private averageDuration(): number | undefined {
    return this.sql.exec<{ value: number }>("SELECT value FROM stats WHERE key = 'average_ms'").toArray()[0]?.value;
  }

  /** When the oldest running query should finish, by the average duration; bounded by its lease. */
  private retryAfter(now: number, ttlMs: number): number {
    const oldest = this.sql
      .exec<{ acquired_at: number; expires_at: number }>("SELECT acquired_at, expires_at FROM leases ORDER BY acquired_at LIMIT 1")
      .toArray()[0];
    if (!oldest) return MIN_RETRY_AFTER_MS;
    const average = this.averageDuration() ?? 1000;
    const expected = oldest.acquired_at + average - now;
    return Math.round(Math.max(MIN_RETRY_AFTER_MS, Math.min(expected, oldest.expires_at - now, ttlMs)));
  }
}
