/**
 * The circuit breaker of one source, as pure functions over a persisted snapshot (the source's
 * Durable Object stores it, so it survives eviction). Closed: calls flow, consecutive failures
 * count. Open after THRESHOLD failures: calls are refused at once until COOLDOWN_MS passed.
 * Half-open: exactly one probe call goes through; its success closes, its failure re-opens.
 */
import { MAX_ATTEMPTS } from "./backoff";
import type { BreakerSnapshot } from "../sources/upstream.types";

export const BREAKER_THRESHOLD = 5;
export const BREAKER_COOLDOWN_MS = 30_000;

export const CLOSED: BreakerSnapshot = { state: "closed", failures: 0, openedAt: null };

export type Admission = { allowed: true; probe: boolean; next: BreakerSnapshot } | { allowed: false; retryAfterMs: number };

/** `probeInFlight`: a half-open probe is already running, so this call must wait its verdict. */
export function admit(breaker: BreakerSnapshot, now: number, probeInFlight: boolean): Admission {
  if (breaker.state === "closed") return { allowed: true, probe: false, next: breaker };
  const openedAt = breaker.openedAt ?? now;
  const waited = now - openedAt;
  if (breaker.state === "open" && waited < BREAKER_COOLDOWN_MS) return { allowed: false, retryAfterMs: BREAKER_COOLDOWN_MS - waited };
  if (probeInFlight) return { allowed: false, retryAfterMs: 1_000 };
  return { allowed: true, probe: true, next: { ...breaker, state: "half_open" } };
}

export function recordSuccess(): BreakerSnapshot {
  return CLOSED;
}

export function recordFailure(breaker: BreakerSnapshot, now: number): BreakerSnapshot {
  const failures = breaker.failures + 1;
  if (breaker.state === "half_open" || failures >= BREAKER_THRESHOLD) return { state: "open", failures, openedAt: now };
  return { state: "closed", failures, openedAt: null };
}

/**
 * How long an admitted half-open probe holds the breaker: the call's own limit (timeout × attempts,
 * plus the backoff between them). A probe whose caller vanished (an isolate evicted mid-call)
 * frees the breaker after this, so a source is never stuck half-open.
 */
export function probeLeaseMs(timeoutMs: number): number {
  return timeoutMs * MAX_ATTEMPTS + 5_000;
}
