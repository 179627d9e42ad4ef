/**
 * The concurrency gate for RAG queries: one instance per pipeline (idFromName(pipeline)). It hosts
 * that pipeline's leases in its SQLite storage; admission, expiry and the retry hint are
 * workers/rag/pipeline-leases.ts. A Durable Object runs one method at a time, and none of these
 * await, which is what makes check-and-take atomic.
 */
import { DurableObject } from "cloudflare:workers";
import { type AcquireRequest, type GateDecision, PipelineLeases } from "../workers/rag/pipeline-leases";

export class RagGate extends DurableObject<Env> {
  private readonly leases: PipelineLeases;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.leases = new PipelineLeases(ctx.storage.sql);
  }

  acquire(request: AcquireRequest): GateDecision {
    return this.leases.acquire(request);
  }

  /** Frees the slot; releasing an unknown or lapsed lease is a no-op. */
  release(leaseId: string): void {
    this.leases.release(leaseId);
  }

  inFlight(): number {
    return this.leases.inFlight();
  }
}
