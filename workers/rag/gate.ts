/**
 * The RAG concurrency gate as the query service sees it: take a slot for a pipeline or get a
 * clear "busy" AppError; give it back when done. Backed by one RagGate Durable Object per pipeline.
 */
import { AppError } from "../lib/errors";
import type { PipelineName } from "./rag.schema";

/** A lease outlives the query timeout by this much before the gate reclaims it. */
const LEASE_GRACE_MS = 5_000;

export interface Lease {
  release(): Promise<void>;
}

export class QueryGate {
  constructor(
    private readonly namespace: Env["RAG_GATE"],
    private readonly limit: number,
  ) {}

  private stub(pipeline: PipelineName) {
    return this.namespace.get(this.namespace.idFromName(pipeline));
  }

  async acquire(pipeline: PipelineName, leaseId: string, timeoutMs: number): Promise<Lease> {
    const stub = this.stub(pipeline);
    const decision = await stub.acquire({ leaseId, limit: this.limit, ttlMs: timeoutMs + LEASE_GRACE_MS });
    if (!decision.granted) {
      throw new AppError(
        "busy",
        `${pipeline} is busy: ${decision.in_flight} of ${this.limit} queries already running; retry after ${decision.retry_after_ms} ms`,
        { details: { retry_after_ms: decision.retry_after_ms, pipeline, limit: this.limit } },
      );
    }
    return { release: () => stub.release(leaseId) };
  }

  async inFlight(pipeline: PipelineName): Promise<number> {
    return this.stub(pipeline).inFlight();
  }
}
