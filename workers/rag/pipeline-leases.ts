/**
 * The leases of one RAG pipeline's queries in flight, each with its user, kept in the SQLite
 * storage of the pipeline's RagGate object (durable-objects/rag-gate.do.ts), which only hosts this.
 * Admission follows fair-share.ts (the pipeline limit, a per-user limit below it, equal shares
 * while several users wait). The object runs one method at a time and none of these await, so
 * check-and-take is atomic under any number of concurrent callers. Each lease has an expiry, so a
 * Worker that dies mid-query frees its slot when the lease lapses (query timeout + grace), and an
 * evicted object forgets nothing.
 */
import { admit } from "./fair-share";

export type GateDecision =
  | { granted: true; in_flight: number; mine: number }
  | {
      granted: false;
      reason: "user_share" | "pipeline_full";
      in_flight: number;
      /** The asking user's queries in flight, and how many they may have right now. */
      mine: number;
      allowed: number;
      retry_after_ms: number;
    };

export interface AcquireRequest {
  leaseId: string;
  userId: number;
  limit: number;
  perUserLimit: number;
  /** The lease lapses after this long even if never released. */
  ttlMs: number;
}

/** Never tell a client to come back sooner than this. */
const MIN_RETRY_AFTER_MS = 50;
/** Weight of the newest duration in the running average. */
const AVERAGE_WEIGHT = 0.2;

export class PipelineLeases {
  constructor(private readonly sql: SqlStorage) {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS leases (id TEXT PRIMARY KEY, acquired_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, user_id INTEGER)`,
    );
    // Gates created before per-user fairness have no user column; their old leases (user NULL)
    // count towards the pipeline only, and lapse within one query timeout.
    if (!this.sql.exec("SELECT * FROM leases LIMIT 0").columnNames.includes("user_id")) {
      this.sql.exec("ALTER TABLE leases ADD COLUMN user_id INTEGER");
    }
    this.sql.exec(`CREATE TABLE IF NOT EXISTS stats (key TEXT PRIMARY KEY, value REAL NOT NULL)`);
  }

  acquire({ leaseId, userId, limit, perUserLimit, ttlMs }: AcquireRequest): GateDecision {
    const now = Date.now();
    this.sql.exec("DELETE FROM leases WHERE expires_at <= ?", now);
    const state = this.sql
      .exec<{ in_flight: number; mine: number; other_users: number }>(
        `SELECT count(*) AS in_flight, coalesce(sum(user_id = ?1), 0) AS mine,
                count(DISTINCT CASE WHEN user_id != ?1 THEN user_id END) AS other_users
         FROM leases WHERE id != ?2`,
        userId,
        leaseId,
      )
      .one();
    const admission = admit({ inFlight: state.in_flight, mine: state.mine, otherUsers: state.other_users }, limit, perUserLimit);
    if (!admission.granted) {
      const own = admission.reason === "user_share" ? userId : undefined;
      return {
        granted: false,
        reason: admission.reason,
        in_flight: state.in_flight,
        mine: state.mine,
        allowed: admission.allowed,
        retry_after_ms: this.retryAfter(now, ttlMs, own),
      };
    }
    this.sql.exec(
      "INSERT OR REPLACE INTO leases (id, user_id, acquired_at, expires_at) VALUES (?, ?, ?, ?)",
      leaseId,
      userId,
      now,
      now + ttlMs,
    );
    return { granted: true, in_flight: state.in_flight + 1, mine: state.mine + 1 };
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
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM leases").one().n;
  }

  private averageDuration(): number | undefined {
    return this.sql.exec<{ value: number }>("SELECT value FROM stats WHERE key = 'average_ms'").toArray()[0]?.value;
  }

  /**
   * When a slot should free up, by the average duration, bounded by the lease: the oldest running
   * query's — or, for a user at their share, their own oldest (whose end surely lets them in again).
   */
  private retryAfter(now: number, ttlMs: number, userId: number | undefined): number {
    const oldest = (
      userId === undefined
        ? this.sql.exec<{ acquired_at: number; expires_at: number }>(
            "SELECT acquired_at, expires_at FROM leases ORDER BY acquired_at LIMIT 1",
          )
        : this.sql.exec<{ acquired_at: number; expires_at: number }>(
            "SELECT acquired_at, expires_at FROM leases WHERE user_id = ? ORDER BY acquired_at LIMIT 1",
            userId,
          )
    ).toArray()[0];
    if (!oldest) return MIN_RETRY_AFTER_MS;
    const average = this.averageDuration() ?? 1000;
    const expected = oldest.acquired_at + average - now;
    return Math.round(Math.max(MIN_RETRY_AFTER_MS, Math.min(expected, oldest.expires_at - now, ttlMs)));
  }
}
