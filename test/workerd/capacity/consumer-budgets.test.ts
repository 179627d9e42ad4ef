/**
 * The EVENTS consumer's share of every call that sends an event: its D1 work for one full batch of
 * GATEWAY_CALL messages (max_batch_size in wrangler.toml), through the Worker's own queue handler
 * with the counted bindings, asserted against bench/capacity/operation-budgets.ts.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CONSUMER_BATCH_BUDGET, CONSUMER_BATCH_SIZE } from "../../../bench/capacity/operation-budgets";
import { toolCallEvent } from "../../../workers/gateway/calls/tool-call-audit";
import worker from "../../../workers/index";
import { EVENTS_QUEUE } from "../../helpers/queue";
import { createUser } from "../../helpers/users";
import { counting } from "./measure";

describe("operation budgets: the EVENTS consumer", () => {
  it("a full batch of gateway call audits", async () => {
    const user = await createUser();
    const messages = Array.from({ length: CONSUMER_BATCH_SIZE }, (_, index) => ({
      id: `capacity-${index}`,
      timestamp: new Date(),
      attempts: 1,
      body: toolCallEvent({ userId: user.id, sourceId: null, source: "builtin:tasks", tool: "list_tasks", durationMs: 3, outcome: "ok" }),
    }));
    const batch = createMessageBatch(EVENTS_QUEUE, messages);
    const ctx = createExecutionContext();
    counting.reset();
    await worker.queue(batch, counting.env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toHaveLength(CONSUMER_BATCH_SIZE);
    const { d1_queries, d1_writes, d1_rows_read, d1_rows_written } = counting.counts();
    expect(
      { d1_queries, d1_writes, d1_rows_read, d1_rows_written },
      "the EVENTS consumer's operations changed; if on purpose, update CONSUMER_BATCH_BUDGET in bench/capacity/operation-budgets.ts",
    ).toEqual(CONSUMER_BATCH_BUDGET);
  });
});
