/**
 * The RAG gate split by user shard (decision 0067): a user's queries always go to the same
 * `<pipeline>:<shard>` object, users of different shards never wait on each other, a full shard
 * still refuses with the usual busy error, and a pipeline never runs more than shards × limit.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../../workers/lib/errors";
import { gateLimits, type Lease, QueryGate } from "../../../workers/rag/gate";
import { DEFAULT_GATE_SHARDS, gateName, shardOf } from "../../../workers/rag/gate-shards";
import { readRagConfig } from "../../../workers/rag/rag.config";
import type { PipelineName } from "../../../workers/rag/rag.schema";

const SHARDS = 4;
const LIMITS = { limit: 2, perUser: 1, shards: SHARDS };

function shardObject(pipeline: PipelineName, shard: number) {
  return env.RAG_GATE.get(env.RAG_GATE.idFromName(gateName(pipeline, shard)));
}

/** `count` user ids, all in `shard`, from a range of its own per test (storage is shared within the file). */
function usersOfShard(shard: number, count: number, base: number): number[] {
  return Array.from({ length: count }, (_, i) => base + i * SHARDS + shard);
}

async function busyOf(attempt: Promise<Lease>): Promise<AppError> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a busy AppError, got ${String(error)}`);
  return error;
}

describe("the shard of a user", () => {
  it("is the user's id modulo the shard count: the same on every call, spread evenly over sequential ids", () => {
    for (const user of [1, 2, 17, 1_000_003]) {
      expect(shardOf(user, 16)).toBe(user % 16);
      expect(shardOf(user, 16)).toBe(shardOf(user, 16));
      expect(shardOf(user, 1)).toBe(0);
    }
    const counts = new Array<number>(16).fill(0);
    for (let user = 1; user <= 1_600; user++) counts[shardOf(user, 16)]!++;
    expect(counts).toEqual(new Array<number>(16).fill(100));
    expect(readRagConfig(env).gateShards).toBe(DEFAULT_GATE_SHARDS);
  });

  it("decides which gate object holds the user's leases, from any QueryGate", async () => {
    const pipeline = "rag_basic" satisfies PipelineName;
    const user = 9_000_001;
    const shard = shardOf(user, SHARDS);
    const lease = await new QueryGate(env.RAG_GATE, LIMITS).acquire(pipeline, user, crypto.randomUUID(), 30_000);
    // A second gate (another request, another isolate) finds the same object: the user's slot is taken.
    const again = await busyOf(new QueryGate(env.RAG_GATE, LIMITS).acquire(pipeline, user, crypto.randomUUID(), 30_000));
    expect(again.details).toMatchObject({ reason: "user_share", shard, shards: SHARDS });
    for (let s = 0; s < SHARDS; s++) expect(await shardObject(pipeline, s).inFlight(), `shard ${s}`).toBe(s === shard ? 1 : 0);
    await lease.release();
    expect(await shardObject(pipeline, shard).inFlight()).toBe(0);
  });
});

describe("a sharded gate", () => {
  it("lets a user of another shard in while a shard is at its limit, which still refuses with the busy error", async () => {
    const gate = new QueryGate(env.RAG_GATE, LIMITS);
    const pipeline = "rag_crag" satisfies PipelineName;
    const [a1, a2, a3] = usersOfShard(1, 3, 9_100_000);
    const held = [await gate.acquire(pipeline, a1!, "q", 30_000), await gate.acquire(pipeline, a2!, "q", 30_000)];

    const refused = await busyOf(gate.acquire(pipeline, a3!, "q", 30_000));
    expect(refused.code).toBe("busy");
    expect(refused.message).toMatch(/^rag_crag is busy: 2 of 2 queries already running; retry after \d+ ms$/);
    expect(refused.details).toMatchObject({ reason: "pipeline_full", limit: 2, shard: 1, shards: SHARDS });

    // A user of shard 2 does not wait on shard 1.
    const [b] = usersOfShard(2, 1, 9_100_000);
    const other = await gate.acquire(pipeline, b!, "q", 30_000);
    expect(await gate.inFlight(pipeline)).toBe(3);

    // Shard 1 admits again once one of its own queries ends.
    await held[0]!.release();
    const next = await gate.acquire(pipeline, a3!, "q", 30_000);
    await Promise.all([held[1]!.release(), other.release(), next.release()]);
    expect(await gate.inFlight(pipeline)).toBe(0);
  });

  it("keeps each user's fair share within their shard", async () => {
    const gate = new QueryGate(env.RAG_GATE, { limit: 5, perUser: 4, shards: SHARDS });
    const pipeline = "rag_colbert" satisfies PipelineName;
    const [flooder, newcomer] = usersOfShard(3, 2, 9_200_000);
    const flood = await Promise.allSettled(Array.from({ length: 19 }, (_, i) => gate.acquire(pipeline, flooder!, `f${i}`, 30_000)));
    expect(flood.filter((a) => a.status === "fulfilled")).toHaveLength(4);
    const refused = flood.find((a) => a.status === "rejected");
    const reason = refused?.status === "rejected" ? refused.reason : undefined;
    expect(reason instanceof AppError && reason.details).toMatchObject({ reason: "user_share" });
    // The reserved slot of the flooder's shard goes to the other user of that shard.
    const lease = await gate.acquire(pipeline, newcomer!, "n", 30_000);
    expect(await shardObject(pipeline, 3).inFlight()).toBe(5);
    await lease.release();
    for (const [i, a] of flood.entries()) if (a.status === "fulfilled") await shardObject(pipeline, 3).release(`${flooder}:f${i}`);
  });

  it("never runs more than shards × limit queries of a pipeline, however many users arrive together", async () => {
    const gate = new QueryGate(env.RAG_GATE, LIMITS);
    const pipeline = "rag_global_graphrag" satisfies PipelineName;
    const attempts = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => gate.acquire(pipeline, 9_300_000 + i, crypto.randomUUID(), 30_000)),
    );
    const leases = attempts.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    expect(leases).toHaveLength(SHARDS * LIMITS.limit);
    for (let s = 0; s < SHARDS; s++) expect(await shardObject(pipeline, s).inFlight()).toBe(LIMITS.limit);
    await Promise.all(leases.map((lease) => lease.release()));
  });

  it("is what the RAG service uses: gateLimits carries RAG_GATE_SHARDS", () => {
    expect(gateLimits(readRagConfig(env))).toEqual({ limit: 5, perUser: 4, shards: DEFAULT_GATE_SHARDS });
    expect(gateLimits(readRagConfig({ ...env, RAG_GATE_SHARDS: "1" }))).toMatchObject({ shards: 1 });
    expect(gateLimits(readRagConfig({ ...env, RAG_GATE_SHARDS: "0" }))).toMatchObject({ shards: DEFAULT_GATE_SHARDS });
  });
});
