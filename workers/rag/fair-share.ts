/**
 * How the RAG gate shares a pipeline's slots between users (decision: docs/decisions, "fair RAG
 * gate"). One RagGate Durable Object per pipeline applies it to the leases it holds:
 *
 * - never more than `limit` queries of the pipeline in flight;
 * - one user never more than `perUser`, which is below `limit` (when limit ≥ 2): however hard one
 *   user floods, a slot stays free, so a user with nothing in flight is let in at once;
 * - while other users have queries in flight, a user is held to an equal share,
 *   max(1, floor(limit / users in flight)): a slot freed by a user above their share goes to the
 *   others, so the slots converge to equal shares as queries finish.
 *
 * Queries already running are never stopped: fairness works on admissions only.
 */

export interface GateState {
  /** Queries of the pipeline in flight, of every user. */
  inFlight: number;
  /** Of those, the asking user's. */
  mine: number;
  /** Users other than the asking one with queries in flight. */
  otherUsers: number;
}

export type Admission = { granted: true; allowed: number } | { granted: false; reason: "user_share" | "pipeline_full"; allowed: number };

/** The per-user limit from configuration: below the pipeline limit whenever it can be; default limit − 1. */
export function perUserLimit(limit: number, configured: number | undefined): number {
  const ceiling = Math.max(1, limit - 1);
  return configured === undefined ? ceiling : Math.max(1, Math.min(configured, ceiling));
}

/** `allowed`: how many queries this user may have in flight right now. */
export function admit(state: GateState, limit: number, perUser: number): Admission {
  const share = Math.max(1, Math.floor(limit / (state.otherUsers + 1)));
  const allowed = Math.min(perUser, share);
  if (state.mine >= allowed) return { granted: false, reason: "user_share", allowed };
  if (state.inFlight >= limit) return { granted: false, reason: "pipeline_full", allowed };
  return { granted: true, allowed };
}
