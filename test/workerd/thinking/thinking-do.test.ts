/** The ThinkingLog Durable Object itself: its RPC methods and its SQLite table. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ThinkingLog } from "../../../durable-objects/thinking.do";
import { MAX_HISTORY, type ThoughtInput } from "../../../workers/thinking/thinking.schema";

function freshLog() {
  return env.THINKING.get(env.THINKING.idFromName(`test:${crypto.randomUUID()}`));
}

function input(thoughtNumber: number, fields: Partial<ThoughtInput> = {}): ThoughtInput {
  return { thought: `t${thoughtNumber}`, thoughtNumber, totalThoughts: 2, nextThoughtNeeded: true, ...fields };
}

describe("ThinkingLog", () => {
  it("stores each thought with its adjusted total and only the optional fields given", async () => {
    const log = freshLog();
    await log.record(input(1));
    await log.record(input(3, { isRevision: true, revisesThought: 1, needsMoreThoughts: false }));
    const history = await log.history();
    expect(history).toEqual([
      { seq: 1, thread: 1, createdAt: expect.any(String), thought: "t1", thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true },
      {
        seq: 2,
        thread: 1,
        createdAt: expect.any(String),
        thought: "t3",
        thoughtNumber: 3,
        totalThoughts: 3,
        nextThoughtNeeded: true,
        isRevision: true,
        revisesThought: 1,
        needsMoreThoughts: false,
      },
    ]);
  });

  it("answers a missing thought as a rejection value and writes nothing", async () => {
    const log = freshLog();
    await log.record(input(1));
    expect(await log.record(input(2, { branchFromThought: 9, branchId: "b" }))).toEqual({
      ok: false,
      field: "branchFromThought",
      message: "branchFromThought: thought 9 does not exist in the current thread (it has thought 1)",
    });
    expect(await log.history()).toHaveLength(1);
  });

  it(`keeps the newest ${MAX_HISTORY} thoughts; branches and the thread follow what is kept`, async () => {
    const log = freshLog();
    await runInDurableObject(log, (instance: ThinkingLog, state) => {
      instance.record(input(1));
      instance.record(input(2, { branchFromThought: 1, branchId: "early" }));
      for (let n = 3; n <= MAX_HISTORY + 5; n += 1) instance.record(input(n));
      const outcome = instance.record(input(MAX_HISTORY + 6, { branchFromThought: MAX_HISTORY, branchId: "late" }));

      expect(outcome).toMatchObject({ ok: true, result: { thoughtHistoryLength: MAX_HISTORY, branches: ["late"] } });
      expect(outcome.ok && outcome.result.thread).toEqual({ id: 1, thoughtCount: MAX_HISTORY, branches: ["late"] });
      const bounds = state.storage.sql
        .exec<{ n: number; low: number; high: number }>("SELECT count(*) AS n, min(seq) AS low, max(seq) AS high FROM thoughts")
        .one();
      expect(bounds).toEqual({ n: MAX_HISTORY, low: 7, high: MAX_HISTORY + 6 });
      // The dropped thoughts can no longer be revised.
      expect(instance.record(input(MAX_HISTORY + 7, { isRevision: true, revisesThought: 2 }))).toMatchObject({
        ok: false,
        field: "revisesThought",
      });
    });
  });

  it("a reset clears everything but never reuses a thread id", async () => {
    const log = freshLog();
    await log.record(input(1));
    await log.record(input(2));
    const second = await log.record(input(1));
    expect(second).toMatchObject({ ok: true, result: { thread: { id: 3, thoughtCount: 1 } } });

    expect(await log.reset()).toBe(3);
    expect(await log.history()).toEqual([]);
    // Even a first thought not numbered 1 opens a thread on an empty history.
    expect(await log.record(input(2))).toMatchObject({ ok: true, result: { thoughtHistoryLength: 1, thread: { id: 4, thoughtCount: 1 } } });
    await runInDurableObject(log, (_instance: ThinkingLog, state) => {
      expect(state.storage.sql.exec("SELECT seq, thread FROM thoughts").toArray()).toEqual([{ seq: 4, thread: 4 }]);
    });
  });
});
