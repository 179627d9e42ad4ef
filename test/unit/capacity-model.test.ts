/** The capacity model's arithmetic (bench/capacity/model.ts) on the committed budgets. */
import { describe, expect, it } from "vitest";
import { capacity, DEFAULT_INPUT, normaliseMix, perCallCounts } from "../../bench/capacity/model";
import { CALL_BUDGETS, CONSUMER_BATCH_BUDGET, CONSUMER_BATCH_SIZE } from "../../bench/capacity/operation-budgets";

describe("the capacity model", () => {
  it("normalises a mix and weighs cold and warm budgets by the warm share", () => {
    expect(normaliseMix({ list_tasks: 2, add_task: 2 })).toEqual([
      ["list_tasks", 0.5],
      ["add_task", 0.5],
    ]);
    const half = perCallCounts([["list_tasks", 1]], 0.5);
    const { cold, warm } = CALL_BUDGETS.list_tasks;
    expect(half.d1_queries).toBe((cold.d1_queries + warm.d1_queries) / 2);
  });

  it("puts a call's writes, reads and consumer statements on the primary, divided over the shards", () => {
    const rate = 1_000;
    const one = capacity({ ...DEFAULT_INPUT, callsPerSecond: rate, mix: { add_task: 1 } });
    const add = CALL_BUDGETS.add_task.cold;
    const consumer = (add.queue_messages * CONSUMER_BATCH_BUDGET.d1_queries) / CONSUMER_BATCH_SIZE;
    const primary = { resource: "D1 primary (one shard)", load: rate * (add.d1_queries + consumer), ceiling: 1_000 };
    expect(one.resources[0]).toMatchObject(primary);
    const eight = capacity({ ...DEFAULT_INPUT, callsPerSecond: rate, mix: { add_task: 1 }, shards: 8 });
    expect(eight.resources[0]!.load).toBeCloseTo(one.resources[0]!.load / 8);
    expect(eight.storage.bytesPerDayPerShard).toBeCloseTo(one.storage.bytesPerDayPerShard / 8);
  });

  it("moves reads to the replicas when read replication is on", () => {
    const replicated = capacity({ ...DEFAULT_INPUT, callsPerSecond: 100, mix: { list_tasks: 1 }, readReplication: true });
    const { d1_queries, d1_writes } = CALL_BUDGETS.list_tasks.cold;
    expect(replicated.resources[0]!.load).toBe(100 * d1_writes);
    const replicas = { resource: "D1 read replicas (one shard)", load: 100 * (d1_queries - d1_writes), ceiling: 6_000 };
    expect(replicated.resources[1]).toMatchObject(replicas);
  });

  it("names the resource nearest its ceiling and the rate at which the mix reaches it", () => {
    const report = capacity({ ...DEFAULT_INPUT, callsPerSecond: 10_000, mix: { gateway_builtin_call: 1 }, shards: 1_000 });
    // 1 message a call: 10,000 messages/s on one queue of 5,000.
    expect(report.firstCeiling.resource).toBe("EVENTS queue (one queue)");
    expect(report.maxCallsPerSecond).toBeCloseTo(5_000);
  });

  it("counts 647 bytes a gateway call: 10 calls/s fill 10 GB in 17.9 days", () => {
    const report = capacity({ ...DEFAULT_INPUT, callsPerSecond: 10, mix: { gateway_upstream_call: 1 } });
    expect(report.storage.bytesPerDayPerShard).toBe(10 * 647 * 86_400);
    expect(report.storage.daysToFullPerShard).toBeCloseTo(17.9, 1);
    expect(report.storage.fitsWithRetention).toBe(false);
  });

  it("refuses a mix with no calls", () => {
    expect(() => normaliseMix({ list_tasks: 0 })).toThrow(/no calls/);
  });
});
