/**
 * What a source's Durable Object stores (SQLite-backed KV; docs/storage.md, "Gateway"): one key per
 * fact, typed here so the object's jobs never spell a key. It never stores headers, secrets or
 * tokens: they come with each RPC.
 */
import type { UpstreamListing } from "../discovery/upstream-listing";
import type { CallRecord } from "../calls/call-stats";
import { CLOSED } from "../calls/breaker";
import type { BreakerSnapshot, UpstreamTool } from "../sources/upstream.types";
import type { SessionInfo } from "../../mcp-client/connect";

const BREAKER_KEY = "breaker";
const SESSION_KEY = "session";
const TOOLS_KEY = "tools";
const STALE_KEY = "inventory_stale_at";
const CALLS_KEY = "calls";
const REDISCOVERY_KEY = "rediscovery";
/**
 * `refresh_lease:<user id>`: the upstream-token refresh gate kept these here until it moved to its
 * own object (UpstreamRefreshLease, decision 0058); a deleted source's object still drops any left.
 */
const FORMER_REFRESH_LEASE_PREFIX = "refresh_lease:";

/** The last upstream connection's session, and the config it was opened with. */
export interface StoredSession extends SessionInfo {
  fingerprint: string;
}

/** Whose rediscovery the object's alarm runs, and how many discoveries in a row have failed (the backoff). */
export interface RediscoveryState {
  sourceId: number;
  failures: number;
}

export class SourceStorage {
  constructor(private readonly kv: SyncKvStorage) {}

  breaker(): BreakerSnapshot {
    return this.kv.get<BreakerSnapshot>(BREAKER_KEY) ?? CLOSED;
  }

  setBreaker(breaker: BreakerSnapshot): void {
    this.kv.put(BREAKER_KEY, breaker);
  }

  session(): StoredSession | undefined {
    return this.kv.get<StoredSession>(SESSION_KEY);
  }

  setSession(session: StoredSession): void {
    this.kv.put(SESSION_KEY, session);
  }

  forgetSession(): void {
    this.kv.delete(SESSION_KEY);
  }

  calls(): CallRecord[] {
    return this.kv.get<CallRecord[]>(CALLS_KEY) ?? [];
  }

  setCalls(calls: CallRecord[]): void {
    this.kv.put(CALLS_KEY, calls);
  }

  toolCount(): number {
    return this.kv.get<UpstreamTool[]>(TOOLS_KEY)?.length ?? 0;
  }

  inventoryStaleAt(): string | null {
    return this.kv.get<string>(STALE_KEY) ?? null;
  }

  /** Keeps the object's copy of the inventory and returns when its cache hint expires. */
  keepInventory(listing: UpstreamListing): string | null {
    this.kv.put(TOOLS_KEY, listing.tools);
    const staleAt = listing.ttlMs === null ? null : new Date(Date.now() + listing.ttlMs).toISOString();
    if (staleAt === null) this.kv.delete(STALE_KEY);
    else this.kv.put(STALE_KEY, staleAt);
    return staleAt;
  }

  rediscovery(): RediscoveryState | undefined {
    return this.kv.get<RediscoveryState>(REDISCOVERY_KEY);
  }

  setRediscovery(state: RediscoveryState): void {
    this.kv.put(REDISCOVERY_KEY, state);
  }

  forgetRediscovery(): void {
    this.kv.delete(REDISCOVERY_KEY);
  }

  /** The source was deleted: nothing of it stays. */
  forgetAll(): void {
    for (const key of [BREAKER_KEY, SESSION_KEY, TOOLS_KEY, STALE_KEY, CALLS_KEY, REDISCOVERY_KEY]) this.kv.delete(key);
    for (const [key] of [...this.kv.list({ prefix: FORMER_REFRESH_LEASE_PREFIX })]) this.kv.delete(key);
  }
}
