/**
 * The capacity model: the measured operation budgets (operation-budgets.ts) times a mix of calls,
 * against Cloudflare's published limits. Pure arithmetic, so bin/capacity.ts prints it and
 * test/unit/capacity-model.test.ts checks it. docs/scale.md states the model and its assumptions.
 */
import { CALL_BUDGETS, type CallKind, CONSUMER_BATCH_BUDGET, CONSUMER_BATCH_SIZE } from "./operation-budgets";
import { noOperations, type OperationCounts } from "./operation-budgets";

/** Cloudflare's published limits (developers.cloudflare.com, D1, Queues, Durable Objects limits pages). */
export const LIMITS = {
  d1DatabaseBytes: 10_000_000_000,
  queueMessagesPerSecond: 5_000,
  durableObjectRequestsPerSecond: 1_000,
} as const;

/**
 * Bytes a call leaves in D1 (docs/scale.md, measured by bench/storage-per-call.ts): a gateway call's
 * audit row; a task write's outbox and audit rows (add_task also its task: 2,114 in all).
 */
export const BYTES_PER_CALL: Partial<Record<CallKind, number>> = {
  gateway_builtin_call: 647,
  gateway_upstream_call: 647,
  add_task: 2_114,
  update_task: 1_606,
  complete_task: 1_606,
};

export interface CapacityInput {
  callsPerSecond: number;
  /** Share of each kind of call; normalised to sum 1. */
  mix: Partial<Record<CallKind, number>>;
  /** Of the calls, the share served with the isolate's caches holding (the budgets' `warm`); the rest `cold`. */
  warmShare: number;
  /** Assumed mean time of one statement on a D1 primary, which runs one at a time. */
  queryMs: number;
  /** D1 databases the users are split over (static shards by user; decision 0066). */
  shards: number;
  /** Reads go to replicas (D1 read replication through the Sessions API), writes alone to the primary. */
  readReplication: boolean;
  /** Replicas serving a shard's reads when replication is on (one per region, reads spread evenly). */
  replicas: number;
  /** EVENTS queues the messages are spread over. */
  queues: number;
  /** Concurrent queries the RAG gate allows per pipeline object, and the assumed mean time of a RAG query. */
  ragSlots: number;
  ragQueryMs: number;
  /** RAG gate objects per pipeline (1 today: one per pipeline, shared by everyone). */
  ragGateObjects: number;
  /** Days audit_log and delivered outbox rows are kept (AUDIT_RETENTION_DAYS). */
  retentionDays: number;
}

export const DEFAULT_INPUT: Omit<CapacityInput, "callsPerSecond" | "mix"> = {
  warmShare: 0,
  queryMs: 1,
  shards: 1,
  readReplication: false,
  replicas: 6,
  queues: 1,
  ragSlots: 5,
  ragQueryMs: 330,
  ragGateObjects: 1,
  retentionDays: 30,
};

export interface ResourceLoad {
  resource: string;
  /** Per second, on the busiest instance of the resource (one shard's primary, one queue, one object). */
  load: number;
  ceiling: number;
  unit: string;
}

export interface CapacityReport {
  perCall: OperationCounts;
  resources: ResourceLoad[];
  /** The resource nearest its ceiling, and the calls/s at which this mix reaches it. */
  firstCeiling: ResourceLoad;
  maxCallsPerSecond: number;
  storage: { bytesPerDayPerShard: number; daysToFullPerShard: number; retainedBytesPerShard: number; fitsWithRetention: boolean };
}

export function normaliseMix(mix: Partial<Record<CallKind, number>>): [CallKind, number][] {
  const entries = Object.entries(mix).filter((entry): entry is [CallKind, number] => entry[0] in CALL_BUDGETS && (entry[1] ?? 0) > 0);
  const total = entries.reduce((sum, [, share]) => sum + share, 0);
  if (total <= 0) throw new Error("the mix has no calls: give at least one kind a share above 0");
  return entries.map(([kind, share]) => [kind, share / total]);
}

/** The operations of one average call of the mix. */
export function perCallCounts(mix: [CallKind, number][], warmShare: number): OperationCounts {
  const sum = noOperations();
  for (const [kind, share] of mix) {
    for (const [state, weight] of [
      ["cold", 1 - warmShare],
      ["warm", warmShare],
    ] as const) {
      const counts = CALL_BUDGETS[kind][state];
      const w = share * weight;
      sum.d1_queries += w * counts.d1_queries;
      sum.d1_writes += w * counts.d1_writes;
      sum.d1_rows_read += w * counts.d1_rows_read;
      sum.d1_rows_written += w * counts.d1_rows_written;
      sum.queue_messages += w * counts.queue_messages;
      sum.kv_reads += w * counts.kv_reads;
      sum.kv_writes += w * counts.kv_writes;
      for (const [binding, requests] of Object.entries(counts.do_requests)) {
        const key = binding as keyof OperationCounts["do_requests"];
        sum.do_requests[key] = (sum.do_requests[key] ?? 0) + w * requests;
      }
    }
  }
  return sum;
}

export function capacity(input: CapacityInput): CapacityReport {
  const mix = normaliseMix(input.mix);
  const perCall = perCallCounts(mix, input.warmShare);
  const rate = input.callsPerSecond;
  const statementsPerSecond = 1000 / input.queryMs;
  // Every message is an event the consumer records on the primary of its user's shard.
  const consumerStatements = (perCall.queue_messages * CONSUMER_BATCH_BUDGET.d1_queries) / CONSUMER_BATCH_SIZE;
  const reads = perCall.d1_queries - perCall.d1_writes;
  const primaryPerCall = perCall.d1_writes + consumerStatements + (input.readReplication ? 0 : reads);
  const row = (resource: string, load: number, ceiling: number, unit: string): ResourceLoad => ({ resource, load, ceiling, unit });
  const perShard = rate / input.shards;
  const resources: ResourceLoad[] = [row("D1 primary (one shard)", perShard * primaryPerCall, statementsPerSecond, "statements/s")];
  if (input.readReplication) {
    resources.push(row("D1 read replicas (one shard)", perShard * reads, statementsPerSecond * input.replicas, "statements/s"));
  }
  const messagesPerQueue = (rate * perCall.queue_messages) / input.queues;
  resources.push(row("EVENTS queue (one queue)", messagesPerQueue, LIMITS.queueMessagesPerSecond, "messages/s"));
  const ragQueries = rate * mix.filter(([kind]) => kind === "rag_query").reduce((sum, [, share]) => sum + share, 0);
  if (ragQueries > 0) {
    const gateRequests = (rate * (perCall.do_requests.RAG_GATE ?? 0)) / input.ragGateObjects;
    resources.push(row("RAG_GATE object (requests)", gateRequests, LIMITS.durableObjectRequestsPerSecond, "requests/s"));
    const slotsCeiling = (input.ragSlots * 1000) / input.ragQueryMs;
    resources.push(row("RAG_GATE object (query slots)", ragQueries / input.ragGateObjects, slotsCeiling, "queries/s"));
  }
  const firstCeiling = resources.reduce((worst, next) => (next.load / next.ceiling > worst.load / worst.ceiling ? next : worst));
  const maxCallsPerSecond = rate / (firstCeiling.load / firstCeiling.ceiling);

  const bytesPerCall = mix.reduce((sum, [kind, share]) => sum + share * (BYTES_PER_CALL[kind] ?? 0), 0);
  const bytesPerDayPerShard = (rate * bytesPerCall * 86_400) / input.shards;
  const retainedBytesPerShard = bytesPerDayPerShard * input.retentionDays;
  return {
    perCall,
    resources,
    firstCeiling,
    maxCallsPerSecond,
    storage: {
      bytesPerDayPerShard,
      daysToFullPerShard: bytesPerDayPerShard > 0 ? LIMITS.d1DatabaseBytes / bytesPerDayPerShard : Infinity,
      retainedBytesPerShard,
      fitsWithRetention: retainedBytesPerShard < LIMITS.d1DatabaseBytes,
    },
  };
}
