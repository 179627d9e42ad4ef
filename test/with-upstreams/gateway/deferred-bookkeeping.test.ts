/**
 * A gateway call's background bookkeeping (gateway/calls/deferred-batch.ts): its GATEWAY_CALL audit
 * message and its breaker report travel in one deferred run per isolate, and the call hands the
 * runtime one promise to keep its request alive for — which, once settled, has delivered both:
 * the report is in the source's object and the audit event reaches the queue's consumer.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DeferredBatch } from "../../../workers/gateway/calls/deferred-batch";
import { createServices } from "../../../workers/services";
import { eventually } from "../../helpers/eventually";
import { registerTasksSource } from "../../helpers/gateway";
import { sourceStatus } from "../../helpers/upstreams-status";
import { createUser } from "../../helpers/users";

describe("deferred bookkeeping of gateway calls", () => {
  it("runs the work joined before a run together, once, after the delay; a failing piece stops no other", async () => {
    const batch = new DeferredBatch(20);
    const ran: string[] = [];
    const first = batch.join(async () => void ran.push("audit"));
    const second = batch.join(() => Promise.reject(new Error("report lost")));
    const third = batch.join(async () => void ran.push("report"));
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(ran).toEqual([]);
    await first;
    expect(ran).toEqual(["audit", "report"]);
    // Work joined after a run started goes to the next one.
    const next = batch.join(async () => void ran.push("later"));
    expect(next).not.toBe(first);
    await next;
    expect(ran).toEqual(["audit", "report", "later"]);
  });

  it("keeps a stateless call's request alive with one promise, which delivers both its report and its audit event", async () => {
    const owner = await createUser();
    const { body } = await registerTasksSource(owner, owner, { name: "Kept", mcp_lifecycle_mode: "singleton" });
    const sourceId = body.source.id;
    const before = (await sourceStatus(sourceId)).calls.window;

    const kept: Promise<unknown>[] = [];
    const services = createServices(env, (promise) => kept.push(promise));
    const target = await services.sourceCalls.find(owner.id, "kept__list_tasks");
    if (!target) throw new Error("kept__list_tasks not callable");
    const outcome = await services.sourceCalls.call(owner.id, target, { limit: 1 });
    expect(outcome.meta.error_type).toBeUndefined();

    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    // Settled: the object has the report…
    expect((await sourceStatus(sourceId)).calls.window).toBe(before + 1);
    // …and the audit message was sent (the real queue delivers it to the consumer, which writes it).
    const row = await eventually(
      () =>
        env.DB.prepare("SELECT payload FROM audit_log WHERE user_id = ? AND type = 'GATEWAY_CALL'")
          .bind(owner.id)
          .first<{ payload: string }>(),
      "the GATEWAY_CALL row of the call",
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(JSON.parse(row.payload)).toMatchObject({ gateway_call: { source_id: sourceId, tool: "list_tasks", outcome: "ok" } });
  });
});
