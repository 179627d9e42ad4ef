/**
 * A source's health, from its D1 row and its Durable Object's status. The state,
 * first rule that applies:
 *   disabled  — the source is switched off;
 *   needs_authorization / authorization_expired — its upstream uses OAuth and its owner has not
 *               connected, or the connection expired: calls answer authorization_required;
 *   unhealthy — its circuit breaker is open (or half-open: a probe is deciding);
 *   degraded  — more than 20% of the recent calls failed, or the last discovery failed;
 *   unknown   — never discovered successfully and never called;
 *   healthy   — otherwise.
 */
import type { AuthorizationState } from "../authorization/source-authorization.repo";
import type { SourceStatus } from "../sources/upstream.types";
import type { SourceRow } from "../sources/sources.repo";
import type { HealthState, SourceHealth } from "../sources/sources.schema";

export const DEGRADED_ERROR_RATE = 0.2;

type CallStats = SourceHealth["calls"];

export function healthState(
  row: Pick<SourceRow, "enabled" | "lastDiscoveredAt" | "lastDiscoveryError">,
  breaker: SourceHealth["breaker"],
  calls: CallStats,
  authorization: AuthorizationState | null = null,
): HealthState {
  if (!row.enabled) return "disabled";
  if (authorization === "needs_authorization" || authorization === "authorization_expired") return authorization;
  if (breaker !== "closed") return "unhealthy";
  if (calls.error_rate > DEGRADED_ERROR_RATE || row.lastDiscoveryError !== null) return "degraded";
  if (calls.window === 0 && row.lastDiscoveredAt === null) return "unknown";
  return "healthy";
}

export function sourceHealth(
  row: SourceRow,
  toolCount: number,
  status: SourceStatus,
  authorization: AuthorizationState | null = null,
): SourceHealth {
  const calls = status.calls;
  const breaker = status.breaker.state;
  return {
    source_id: row.id,
    slug: row.slug,
    name: row.name,
    enabled: row.enabled,
    state: healthState(row, breaker, calls, authorization),
    authorization,
    breaker,
    tool_count: toolCount,
    last_discovered_at: row.lastDiscoveredAt,
    last_discovery_error: row.lastDiscoveryError,
    calls,
  };
}

/** One user's sources counted by state (/health with that user's token). */
export interface HealthCounts {
  total: number;
  healthy: number;
  degraded: number;
  unhealthy: number;
  disabled: number;
  unknown: number;
  needs_authorization: number;
  authorization_expired: number;
}

export function aggregateHealth(states: readonly HealthState[]): HealthCounts {
  const counts: HealthCounts = {
    total: states.length,
    healthy: 0,
    degraded: 0,
    unhealthy: 0,
    disabled: 0,
    unknown: 0,
    needs_authorization: 0,
    authorization_expired: 0,
  };
  for (const state of states) counts[state]++;
  return counts;
}
