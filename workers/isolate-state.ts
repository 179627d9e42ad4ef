/**
 * What an isolate of the main Worker remembers between requests: every piece of state that outlives
 * the request that made it, in one object, so this file says what an isolate remembers (each piece,
 * its bounds and why it is safe: docs/storage.md, "Isolate memory"). The composition root takes it
 * (workers/services.ts#createServices); the Worker's isolate has one, `isolateState`, and a test
 * may hand its own. Each piece is bounded: by workers/lib/bounded-cache.ts, or as its own module says.
 *
 * Kept beside their code instead, and listed in docs/storage.md: memos of a pure derivation (an
 * answer never depends on them: prepared statements, imported keys, per-definition indexes in
 * workers/mcp/), the lazily imported modules (decision 0034), and, until they move here, the
 * caches of workers/auth/ and workers/upstream-oauth/.
 */
import { BREAKER_VIEW_TTL_MS, BreakerView } from "./gateway/calls/breaker-view";
import { CallableToolCache } from "./gateway/calls/callable-cache";
import { DeferredBatch } from "./gateway/calls/deferred-batch";
import { CallEventBuffers } from "./gateway/calls/tool-call-audit";
import { type OpenedConfigs, openedConfigs } from "./gateway/calls/upstream-config";
import { type RagMemory, ragMemory } from "./rag/rag.service";

export interface IsolateState {
  /** Gateway: the callable tools /mcp looked up, per user and name (5 s, 2,048 entries). */
  callables: CallableToolCache;
  /** Gateway: per stateless source called here, this isolate's view of its breaker (5 s, 1,024 sources). */
  breakers: BreakerView;
  /** Gateway: opened upstream configs, their secrets decrypted (60 s, 256 entries). */
  upstreamConfigs: OpenedConfigs;
  /** Gateway: the GATEWAY_CALL messages waiting for the next deferred run. */
  callEvents: CallEventBuffers;
  /** Gateway: the one deferred run of a call's bookkeeping, shared by the breaker reports and the audit. */
  deferred: DeferredBatch;
  /** RAG: per user, the resident exact vector index and term statistics (8 users each). */
  rag: RagMemory;
}

export function createIsolateState(): IsolateState {
  const deferred = new DeferredBatch();
  return {
    callables: new CallableToolCache(),
    breakers: new BreakerView(Date.now, BREAKER_VIEW_TTL_MS, deferred),
    upstreamConfigs: openedConfigs(),
    callEvents: new CallEventBuffers(deferred),
    deferred,
    rag: ragMemory(),
  };
}

/** This isolate's: the one piece of module state the composition root reads. */
export const isolateState: IsolateState = createIsolateState();
