/**
 * Which RagGate object a user's query of a pipeline goes through (decision 0067). Each pipeline's
 * gate is split into RAG_GATE_SHARDS objects named `<pipeline>:<shard>`, a user always in the same
 * shard, so no one object sees every query of a pipeline: each shard admits up to the per-shard
 * limit with the fair shares of fair-share.ts among its own users, and a pipeline runs at most
 * shards × per-shard queries at once.
 */

export const DEFAULT_GATE_SHARDS = 16;
export const MAX_GATE_SHARDS = 1024;

/**
 * The user's shard: their id modulo the shard count. User ids are sequential integers, so the
 * modulo spreads users evenly (a hash would only add variance), and it depends on nothing but the
 * id and the setting: the same user lands in the same shard on every request and every isolate.
 */
export function shardOf(userId: number, shards: number): number {
  return ((userId % shards) + shards) % shards;
}

/** The gate object's name for a pipeline's shard. */
export function gateName(pipeline: string, shard: number): string {
  return `${pipeline}:${shard}`;
}
