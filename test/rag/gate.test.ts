/**
 * The concurrency gate under real concurrency: the RagGate Durable Object itself, the QueryGate
 * the service uses, and a tool call refused with a clear "busy, retry after N ms" error.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../workers/lib/errors";
import { QueryGate } from "../../workers/rag/gate";
import type { PipelineName } from "../../workers/rag/rag.schema";
import { connect } from "../helpers/mcp";
import { callError } from "../helpers/tasks";
import { createUser } from "../helpers/users";

function gateFor(name: string) {
  return env.RAG_GATE.get(env.RAG_GATE.idFromName(name));
}

describe("RagGate Durable Object", () => {
  it("grants exactly `limit` of many simultaneous acquires and refuses the rest with a retry hint", async () => {
    const gate = gateFor(`burst-${crypto.randomUUID()}`);
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => gate.acquire({ leaseId: `lease-${i}`, limit: 5, ttlMs: 30_000 })),
    );
    const granted = decisions.filter((d) => d.granted);
    expect(granted).toHaveLength(5);
    for (const d of decisions.filter((d) => !d.granted)) {
      expect(d).toMatchObject({ granted: false, in_flight: 5 });
      if (!d.granted) expect(d.retry_after_ms).toBeGreaterThanOrEqual(50);
    }
    expect(await gate.inFlight()).toBe(5);
  });

  it("frees a slot on release, ignores unknown leases, and lets an abandoned lease lapse", async () => {
    const gate = gateFor(`release-${crypto.randomUUID()}`);
    for (let i = 0; i < 5; i++) expect((await gate.acquire({ leaseId: `a${i}`, limit: 5, ttlMs: 30_000 })).granted).toBe(true);
    expect((await gate.acquire({ leaseId: "late", limit: 5, ttlMs: 30_000 })).granted).toBe(false);
    await gate.release("a0");
    await gate.release("never-taken");
    expect(await gate.inFlight()).toBe(4);
    expect((await gate.acquire({ leaseId: "late", limit: 5, ttlMs: 30_000 })).granted).toBe(true);

    const lapsing = gateFor(`lapse-${crypto.randomUUID()}`);
    await lapsing.acquire({ leaseId: "crashed-worker", limit: 1, ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await lapsing.acquire({ leaseId: "next", limit: 1, ttlMs: 30_000 })).granted).toBe(true);
  });
});

describe("QueryGate", () => {
  it("never lets more than 5 queries of a pipeline run at once, however many arrive together", async () => {
    const gate = new QueryGate(env.RAG_GATE, 5);
    const pipeline = "rag_colbert" satisfies PipelineName;
    let running = 0;
    let peak = 0;
    const busy: AppError[] = [];
    let finish!: () => void;
    const hold = new Promise<void>((resolve) => (finish = resolve));
    const attempts = Array.from({ length: 30 }, async (_, i) => {
      try {
        const lease = await gate.acquire(pipeline, `q-${i}-${crypto.randomUUID()}`, 30_000);
        running++;
        peak = Math.max(peak, running);
        await hold;
        running--;
        await lease.release();
        return "ran";
      } catch (error) {
        if (error instanceof AppError) busy.push(error);
        return "busy";
      }
    });
    // Let every acquire reach the gate before any query finishes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    finish();
    const outcomes = await Promise.all(attempts);
    expect(peak).toBe(5);
    expect(outcomes.filter((o) => o === "ran")).toHaveLength(5);
    expect(busy).toHaveLength(25);
    for (const error of busy) {
      expect(error.code).toBe("busy");
      expect(error.message).toMatch(/^rag_colbert is busy: 5 of 5 queries already running; retry after \d+ ms$/);
      expect(error.details).toMatchObject({ pipeline: "rag_colbert", limit: 5 });
    }
    expect(await gate.inFlight(pipeline)).toBe(0);
  });
});

describe("a query past the limit", () => {
  it("is refused with a busy error naming the wait, and logged as busy", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const gate = gateFor("rag_basic_rerank");
    const held = Array.from({ length: 5 }, (_, i) => `held-${i}-${crypto.randomUUID()}`);
    for (const leaseId of held) expect((await gate.acquire({ leaseId, limit: 5, ttlMs: 30_000 })).granted).toBe(true);

    const requestId = crypto.randomUUID();
    const text = await callError(client, "rag_basic_rerank", { query: "anything", request_id: requestId });
    expect(text).toMatch(/^busy: rag_basic_rerank is busy: 5 of 5 queries already running; retry after \d+ ms$/);
    // rag_basic has its own gate: it still answers.
    const other = await client.callTool({ name: "rag_basic", arguments: { query: "anything" } });
    expect(other.isError).toBeFalsy();

    for (const leaseId of held) await gate.release(leaseId);
    const after = await client.callTool({ name: "rag_basic_rerank", arguments: { query: "anything" } });
    expect(after.isError).toBeFalsy();
    await client.close();

    let row: { outcome: string; error_code: string } | null = null;
    for (let i = 0; i < 50 && !row; i++) {
      row = await env.DB.prepare("SELECT outcome, error_code FROM rag_query_log WHERE request_id = ?").bind(requestId).first();
      if (!row) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(row).toEqual({ outcome: "busy", error_code: "busy" });
  });
});
