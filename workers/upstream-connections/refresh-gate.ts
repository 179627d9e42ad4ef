/**
 * One refresh at a time per (user, source), across every isolate of the Worker. Authorization
 * servers that rotate refresh tokens (OAuth 2.1 asks for it; mcp-edge's own does) take a second use
 * of a spent refresh token for a replay and end the whole grant, so two isolates that find the same
 * access token expired must not both refresh it. The gate is an UpstreamRefreshLease object
 * (refresh-lease.ts; decision 0058): one per source, and a source has one owner, so it serialises
 * exactly the refreshes that would spend the same token.
 */
import { log } from "../lib/log";

/** How long a refresh may hold the gate before waiters may take it (its isolate may have died). */
export const REFRESH_LEASE_MS = 30_000;
/** Every request of one refresh ends within this, so no refresh outlives its lease. */
export const REFRESH_BUDGET_MS = 20_000;

/**
 * `refresh`: this caller holds the gate — re-read, refresh if still needed, then `end()`.
 * `reread`: another caller held it and is done — its tokens are stored (or it failed and said so).
 */
export type RefreshTurn = { kind: "refresh"; end(): Promise<void> } | { kind: "reread" };

export interface RefreshGate {
  begin(userId: number, sourceId: number): Promise<RefreshTurn>;
}

export function leaseObjectRefreshGate(namespace: Env["UPSTREAM_REFRESH_LEASE"]): RefreshGate {
  return {
    async begin(userId, sourceId) {
      const object = namespace.get(namespace.idFromName(String(sourceId)));
      let lease: string | null;
      try {
        lease = await object.beginTokenRefresh(userId, REFRESH_LEASE_MS);
      } catch (error) {
        // The object unreachable: refreshing ungated risks a replay only if another isolate
        // refreshes this very moment; refusing the call would fail it for certain.
        log.warn("upstream token refresh gate unavailable; refreshing without it", { source_id: sourceId, error: String(error) });
        return { kind: "refresh", end: async () => undefined };
      }
      if (lease === null) return { kind: "reread" };
      const held = lease;
      return {
        kind: "refresh",
        async end() {
          // Not ending only delays the waiters until the lease runs out.
          await object.endTokenRefresh(userId, held).catch((error: unknown) => {
            log.warn("upstream token refresh gate not released", { source_id: sourceId, error: String(error) });
          });
        },
      };
    },
  };
}
