/**
 * The concurrency gate under real concurrency: the RagGate Durable Object itself (the pipeline
 * limit and each user's fair share of it), the QueryGate the service uses, and a tool call refused
 * with a clear "busy, retry after N ms" error. No sleeps order anything here: a Durable Object runs
 * one acquire at a time, so every arrangement of simultaneous acquires is a real interleaving.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../../workers/lib/errors";
import { admit, perUserLimit } from "../../../workers/rag/fair-share";
import { QueryGate } from "../../../workers/rag/gate";
import { gateName, shardOf } from "../../../workers/rag/gate-shards";
import type { AcquireRequest, GateDecision } from "../../../workers/rag/pipeline-leases";
import { readRagConfig } from "../../../workers/rag/rag.config";
import type { PipelineName } from "../../../workers/rag/rag.schema";
import { connect } from "../../helpers/mcp";
import { callError } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

/** One shard: the pipeline's whole bound in one object, as every gate was before shards. */
const LIMITS = { limit: 5, perUser: 4, shards: 1 };

function gateFor(name: string) {
  return env.RAG_GATE.get(env.RAG_GATE.idFromName(name));
}

/** The gate object a user's queries of the pipeline go through with the shipped settings. */
function userGate(pipeline: PipelineName, userId: number) {
  return gateFor(gateName(pipeline, shardOf(userId, readRagConfig(env).gateShards)));
}

type Gate = ReturnType<typeof gateFor>;

type Limits = { limit: number; perUser: number };

function request(userId: number, leaseId = `${userId}-${crypto.randomUUID()}`, limits: Limits = LIMITS): AcquireRequest {
  return { leaseId, userId, limit: limits.limit, perUserLimit: limits.perUser, ttlMs: 30_000 };
}

/** `count` acquires of `userId`, as a list of requests to fire together. */
function flood(userId: number, count: number): AcquireRequest[] {
  return Array.from({ length: count }, () => request(userId));
}

async function fire(gate: Gate, requests: readonly AcquireRequest[]): Promise<Map<number, GateDecision[]>> {
  const decisions = await Promise.all(requests.map((r) => gate.acquire(r)));
  const byUser = new Map<number, GateDecision[]>();
  requests.forEach((r, i) => byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), decisions[i]!]));
  return byUser;
}

const granted = (decisions: readonly GateDecision[] | undefined) => (decisions ?? []).filter((d) => d.granted).length;

describe("the admission rule", () => {
  it("keeps the pipeline limit, one slot from any single user, and an equal share while others wait", () => {
    expect(perUserLimit(5, undefined)).toBe(4);
    expect(perUserLimit(5, 2)).toBe(2);
    expect(perUserLimit(5, 9)).toBe(4);
    expect(perUserLimit(1, undefined)).toBe(1);
    // Alone: up to the per-user limit, never every slot.
    expect(admit({ inFlight: 3, mine: 3, otherUsers: 0 }, 5, 4)).toEqual({ granted: true, allowed: 4 });
    expect(admit({ inFlight: 4, mine: 4, otherUsers: 0 }, 5, 4)).toEqual({ granted: false, reason: "user_share", allowed: 4 });
    // A user with nothing in flight gets the slot the flooder could not take.
    expect(admit({ inFlight: 4, mine: 0, otherUsers: 1 }, 5, 4)).toEqual({ granted: true, allowed: 2 });
    // Two users active: a share of floor(5 / 2) = 2 each.
    expect(admit({ inFlight: 4, mine: 3, otherUsers: 1 }, 5, 4)).toEqual({ granted: false, reason: "user_share", allowed: 2 });
    expect(admit({ inFlight: 5, mine: 1, otherUsers: 1 }, 5, 4)).toEqual({ granted: false, reason: "pipeline_full", allowed: 2 });
    // Many users: never below one each.
    expect(admit({ inFlight: 3, mine: 0, otherUsers: 9 }, 5, 4)).toEqual({ granted: true, allowed: 1 });
  });
});

describe("RagGate Durable Object", () => {
  it("grants exactly `limit` of many simultaneous acquires from many users and refuses the rest with a retry hint", async () => {
    const gate = gateFor(`burst-${crypto.randomUUID()}`);
    const byUser = await fire(gate, Array.from({ length: 8 }, (_, user) => flood(user + 1, 5)).flat());
    const decisions = [...byUser.values()].flat();
    expect(decisions.filter((d) => d.granted)).toHaveLength(5);
    for (const d of decisions.filter((d) => !d.granted)) {
      if (!d.granted) expect(d.retry_after_ms).toBeGreaterThanOrEqual(50);
    }
    expect(await gate.inFlight()).toBe(5);
  });

  it("never lets one user hold every slot, however many they send", async () => {
    const gate = gateFor(`alone-${crypto.randomUUID()}`);
    const decisions = (await fire(gate, flood(1, 40))).get(1)!;
    expect(granted(decisions)).toBe(4);
    for (const d of decisions.filter((d) => !d.granted))
      expect(d).toMatchObject({ granted: false, reason: "user_share", mine: 4, allowed: 4 });
  });

  it("19 queries of one user against 1 of another: the one is granted wherever it arrives", async () => {
    for (const position of [0, 1, 7, 19]) {
      const gate = gateFor(`nineteen-${position}-${crypto.randomUUID()}`);
      const flooder = flood(1, 19);
      const single = request(2);
      const byUser = await fire(gate, [...flooder.slice(0, position), single, ...flooder.slice(position)]);
      expect(granted(byUser.get(2)), `single request at position ${position}`).toBe(1);
      expect(granted(byUser.get(1))).toBeLessThanOrEqual(4);
      expect(await gate.inFlight()).toBeLessThanOrEqual(5);
    }
  });

  it("hands freed slots to users below their share, not to the flooder", async () => {
    const gate = gateFor(`share-${crypto.randomUUID()}`);
    const a = flood(1, 19);
    const first = await fire(gate, a);
    expect(granted(first.get(1))).toBe(4);
    const b = await fire(gate, flood(2, 19));
    expect(granted(b.get(2))).toBe(1);
    // A query of user 1 ends: with two users in flight their share is floor(5 / 2) = 2, and user 1
    // still holds 3, so the freed slot waits for someone below their share.
    const heldByA = a.filter((_, i) => first.get(1)![i]!.granted);
    await gate.release(heldByA[0]!.leaseId);
    expect(await gate.acquire(request(1))).toMatchObject({ granted: false, reason: "user_share", mine: 3, allowed: 2 });
    expect(await gate.acquire(request(3))).toMatchObject({ granted: true });
    // Three users in flight now: a share of one each, which user 2 already has.
    expect(await gate.acquire(request(2))).toMatchObject({ granted: false, reason: "user_share", mine: 1, allowed: 1 });
    expect(await gate.acquire(request(4))).toMatchObject({ granted: false, reason: "pipeline_full", in_flight: 5 });
  });

  it("applies a configured per-user limit", async () => {
    const gate = gateFor(`configured-${crypto.randomUUID()}`);
    const limits = { limit: 5, perUser: 2 };
    const byUser = await fire(
      gate,
      [1, 2, 3].flatMap((user) => Array.from({ length: 3 }, () => request(user, `${user}-${crypto.randomUUID()}`, limits))),
    );
    expect([1, 2, 3].map((user) => granted(byUser.get(user)))).toEqual([2, 2, 1]);
  });

  it("frees a slot on release, ignores unknown leases, and lets an abandoned lease lapse", async () => {
    const gate = gateFor(`release-${crypto.randomUUID()}`);
    for (let i = 0; i < 5; i++) expect((await gate.acquire(request(i + 1, `a${i}`))).granted).toBe(true);
    expect((await gate.acquire(request(9, "late"))).granted).toBe(false);
    await gate.release("a0");
    await gate.release("never-taken");
    expect(await gate.inFlight()).toBe(4);
    expect((await gate.acquire(request(9, "late"))).granted).toBe(true);

    const lapsing = gateFor(`lapse-${crypto.randomUUID()}`);
    await lapsing.acquire({ ...request(1, "crashed-worker", { limit: 1, perUser: 1 }), ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await lapsing.acquire(request(2, "next", { limit: 1, perUser: 1 }))).granted).toBe(true);
  });
});

describe("QueryGate", () => {
  it("never lets more than 5 queries of a pipeline run at once, however many arrive together", async () => {
    const gate = new QueryGate(env.RAG_GATE, LIMITS);
    const pipeline = "rag_colbert" satisfies PipelineName;
    const attempts = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => gate.acquire(pipeline, 1_000 + (i % 10), `q-${i}-${crypto.randomUUID()}`, 30_000)),
    );
    const leases = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    const busy = attempts.flatMap((a) => (a.status === "rejected" ? [a.reason as unknown] : []));
    expect(leases).toHaveLength(5);
    expect(await gate.inFlight(pipeline)).toBe(5);
    expect(busy).toHaveLength(25);
    for (const error of busy) {
      expect(error).toBeInstanceOf(AppError);
      if (!(error instanceof AppError)) continue;
      expect(error.code).toBe("busy");
      expect(error.details).toMatchObject({ pipeline: "rag_colbert", limit: 5, retry_after_ms: expect.any(Number) });
      expect(error.message).toMatch(
        /^rag_colbert is busy: (5 of 5 queries already running|you have \d of your \d queries running \(each user's fair share of 5\)); retry after \d+ ms$/,
      );
    }
    await Promise.all(leases.map((lease) => lease.release()));
    expect(await gate.inFlight(pipeline)).toBe(0);
  });
});

describe("QueryGate leases", () => {
  it("are the user's own: another user reusing a request id neither takes over nor frees them", async () => {
    const gate = new QueryGate(env.RAG_GATE, LIMITS);
    const pipeline = "rag_crag" satisfies PipelineName;
    const mine = await gate.acquire(pipeline, 501, "same-request-id", 30_000);
    const theirs = await gate.acquire(pipeline, 502, "same-request-id", 30_000);
    expect(await gate.inFlight(pipeline)).toBe(2);
    await theirs.release();
    expect(await gate.inFlight(pipeline)).toBe(1);
    await mine.release();
    expect(await gate.inFlight(pipeline)).toBe(0);
  });
});

describe("a query past the limit", () => {
  it("is refused with a busy error naming the wait, and logged as busy", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const gate = userGate("rag_basic_rerank", user.id);
    const held = Array.from({ length: 5 }, (_, i) => request(-(i + 1)));
    for (const r of held) expect((await gate.acquire(r)).granted).toBe(true);

    const requestId = crypto.randomUUID();
    const text = await callError(client, "rag_basic_rerank", { query: "anything", request_id: requestId });
    expect(text).toMatch(/^busy: rag_basic_rerank is busy: 5 of 5 queries already running; retry after \d+ ms$/);
    // rag_basic has its own gate: it still answers.
    const other = await client.callTool({ name: "rag_basic", arguments: { query: "anything" } });
    expect(other.isError).toBeFalsy();

    for (const r of held) await gate.release(r.leaseId);
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

  it("while one user floods a pipeline, another user's query still runs; the flooder is told its share", async () => {
    const flooder = await createUser();
    const other = await createUser();
    const gate = userGate("rag_graphrag", flooder.id);
    const flood19 = flood(flooder.id, 19);
    const decisions = await Promise.all(flood19.map((r) => gate.acquire(r)));
    expect(decisions.filter((d) => d.granted)).toHaveLength(4);

    const flooderClient = await connect("rag", flooder.token);
    const text = await callError(flooderClient, "rag_graphrag", { query: "anything" });
    expect(text).toMatch(
      /^busy: rag_graphrag is busy: you have 4 of your 4 queries running \(each user's fair share of 5\); retry after \d+ ms$/,
    );
    await flooderClient.close();

    const otherClient = await connect("rag", other.token);
    const answered = await otherClient.callTool({ name: "rag_graphrag", arguments: { query: "anything" } });
    expect(answered.isError).toBeFalsy();
    await otherClient.close();
    for (const [i, r] of flood19.entries()) if (decisions[i]!.granted) await gate.release(r.leaseId);
  });
});
