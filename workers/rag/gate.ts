/**
 * The RAG concurrency gate as the query service sees it: take a slot of a pipeline for a user, or
 * get a clear "busy" AppError saying whether the pipeline is full or the user has their fair share
 * (fair-share.ts); give it back when done. Backed by one RagGate Durable Object per pipeline and
 * user shard (gate-shards.ts): the limits below are each shard's.
 */
import { AppError } from "../lib/errors";
import { gateName, shardOf } from "./gate-shards";
import type { RagConfig } from "./rag.config";
import type { PipelineName } from "./rag.schema";

/** A lease outlives the query timeout by this much before the gate reclaims it. */
const LEASE_GRACE_MS = 5_000;

export interface Lease {
  release(): Promise<void>;
}

export interface GateLimits {
  /** Queries of one pipeline in flight at once in one shard, all its users together. */
  limit: number;
  /** Queries of one pipeline one user may have in flight (below `limit`; see fair-share.ts). */
  perUser: number;
  /** Shards of each pipeline's gate: a pipeline runs at most shards × limit queries at once. */
  shards: number;
}

export function gateLimits(config: Pick<RagConfig, "maxConcurrentQueries" | "maxConcurrentQueriesPerUser" | "gateShards">): GateLimits {
  return { limit: config.maxConcurrentQueries, perUser: config.maxConcurrentQueriesPerUser, shards: config.gateShards };
}

export class QueryGate {
  constructor(
    private readonly namespace: Env["RAG_GATE"],
    private readonly limits: GateLimits,
  ) {}

  private stub(pipeline: PipelineName, shard: number) {
    return this.namespace.get(this.namespace.idFromName(gateName(pipeline, shard)));
  }

  /** `requestId` may come from the client, so the lease is named by user and request: no one can take over or free another's. */
  async acquire(pipeline: PipelineName, userId: number, requestId: string, timeoutMs: number): Promise<Lease> {
    const shard = shardOf(userId, this.limits.shards);
    const stub = this.stub(pipeline, shard);
    const leaseId = `${userId}:${requestId}`;
    const { limit, perUser } = this.limits;
    const decision = await stub.acquire({ leaseId, userId, limit, perUserLimit: perUser, ttlMs: timeoutMs + LEASE_GRACE_MS });
    if (!decision.granted) {
      const why =
        decision.reason === "user_share"
          ? `you have ${decision.mine} of your ${decision.allowed} queries running (each user's fair share of ${limit})`
          : `${decision.in_flight} of ${limit} queries already running`;
      throw new AppError("busy", `${pipeline} is busy: ${why}; retry after ${decision.retry_after_ms} ms`, {
        details: {
          retry_after_ms: decision.retry_after_ms,
          pipeline,
          limit,
          reason: decision.reason,
          per_user_limit: decision.allowed,
          shard,
          shards: this.limits.shards,
        },
      });
    }
    return { release: () => stub.release(leaseId) };
  }

  /** Queries of the pipeline in flight over all its shards (one request per shard: for tests and operators, not the call path). */
  async inFlight(pipeline: PipelineName): Promise<number> {
    const shards = Array.from({ length: this.limits.shards }, (_, shard) => this.stub(pipeline, shard).inFlight());
    return (await Promise.all(shards)).reduce((sum, n) => sum + n, 0);
  }
}
