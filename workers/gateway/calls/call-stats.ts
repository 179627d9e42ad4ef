/**
 * The rolling window of a source's last calls, as pure functions over the list the
 * source's Durable Object stores. Only calls that reached for the upstream are recorded (a refusal
 * by the open breaker is not); an `isError` answer of the tool itself is a success here — the
 * upstream answered — while connection, protocol and timeout failures are errors.
 */
import type { CallStats } from "../sources/upstream.types";

export const CALL_WINDOW = 100;

export interface CallRecord {
  /** Start, epoch ms. */
  at: number;
  ms: number;
  /** "<type>: <message>" for a failed call, null for a successful one. */
  error: string | null;
}

export function recordCall(calls: readonly CallRecord[], call: CallRecord): CallRecord[] {
  return [...calls, call].slice(-CALL_WINDOW);
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function callStats(calls: readonly CallRecord[]): CallStats {
  const durations = calls.map((c) => c.ms).sort((a, b) => a - b);
  const failed = calls.filter((c) => c.error !== null);
  const lastSuccess = calls.findLast((c) => c.error === null);
  const lastError = failed.at(-1);
  return {
    window: calls.length,
    errors: failed.length,
    error_rate: calls.length === 0 ? 0 : failed.length / calls.length,
    p50_ms: percentile(durations, 50),
    p95_ms: percentile(durations, 95),
    last_success_at: lastSuccess ? new Date(lastSuccess.at).toISOString() : null,
    last_error_at: lastError ? new Date(lastError.at).toISOString() : null,
    last_error: lastError?.error ?? null,
  };
}
