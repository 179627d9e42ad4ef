/**
 * What a source's object reports of itself (`status()`: health, admin tools, tests), and the count
 * of the RPCs it served, by method: how much of the call path reaches the object. In memory only.
 */
import { callStats } from "../calls/call-stats";
import type { SourceStatus } from "../sources/upstream.types";
import type { SourceStorage } from "./source-storage";

export class RpcCounts {
  private readonly counts: Record<string, number> = {};

  count(method: string): void {
    this.counts[method] = (this.counts[method] ?? 0) + 1;
  }

  snapshot(): Record<string, number> {
    return { ...this.counts };
  }
}

/** `warm`: whether a sessionful singleton's connection is open now. */
export function sourceStatus(storage: SourceStorage, warm: boolean, rpc: RpcCounts): SourceStatus {
  const session = storage.session();
  return {
    breaker: storage.breaker(),
    protocolVersion: session?.protocolVersion ?? null,
    sessionId: session?.sessionId ?? null,
    warm,
    toolCount: storage.toolCount(),
    inventory_stale_at: storage.inventoryStaleAt(),
    calls: callStats(storage.calls()),
    rpc: rpc.snapshot(),
  };
}
