/**
 * Every way a thought can be wrong: an isError result naming the field, no stack trace, and
 * nothing recorded. Schema errors come from the shared zod schema; "does not exist" from the
 * user's Durable Object.
 */
import { describe, expect, it } from "vitest";
import { connect, ERAS } from "../../helpers/mcp";
import { callError } from "../../helpers/tasks";
import { think, thought } from "../../helpers/thinking";
import { createUser } from "../../helpers/users";

type Case = [label: string, args: Record<string, unknown>, field: string, says: RegExp];

const SCHEMA_CASES: Case[] = [
  ["thoughtNumber 0", thought(0), "thoughtNumber", />=1/],
  ["totalThoughts 0", thought(1, { totalThoughts: 0 }), "totalThoughts", />=1/],
  ["a fractional thoughtNumber", thought(1.5), "thoughtNumber", /expected int/],
  ["a string thoughtNumber", thought(1, { thoughtNumber: "2" }), "thoughtNumber", /expected number/],
  ["a missing thought", { thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: true }, "thought", /expected string/],
  ["a missing nextThoughtNeeded", { thought: "t", thoughtNumber: 1, totalThoughts: 1 }, "nextThoughtNeeded", /expected boolean/],
  ["revisesThought without isRevision", thought(2, { revisesThought: 1 }), "revisesThought", /set isRevision to true/],
  [
    "revisesThought with isRevision false",
    thought(2, { isRevision: false, revisesThought: 1 }),
    "revisesThought",
    /set isRevision to true/,
  ],
  ["revisesThought 0", thought(2, { isRevision: true, revisesThought: 0 }), "revisesThought", />=1/],
  ["branchId without branchFromThought", thought(2, { branchId: "alt" }), "branchId", /needs branchFromThought/],
  ["branchFromThought without branchId", thought(2, { branchFromThought: 1 }), "branchFromThought", /needs branchId/],
  ["an empty branchId", thought(2, { branchFromThought: 1, branchId: "" }), "branchId", /must not be empty/],
  ["a thought over 20,000 characters", thought(1, { thought: "x".repeat(20_001) }), "thought", /at most 20000 characters/],
];

// 2025-06-18 is the fast path's era: an invalid call must fall through to the SDK's wording there too.
describe.each(["2026-07-28", "2025-06-18"] as const)("thought validation over %s", (era) => {
  it.each(SCHEMA_CASES)("%s is rejected naming the field, recording nothing", async (_label, args, field, says) => {
    const user = await createUser();
    const client = await connect("thinking", user.token, era);
    const text = await callError(client, "sequentialthinking", args);

    expect(text).toMatch(new RegExp(`\\b${field}\\b`));
    expect(text).toMatch(says);
    expect(text).not.toMatch(/\n\s+at /);
    expect(await think(client, 1)).toMatchObject({ thoughtHistoryLength: 1 });
    await client.close();
  });
});

describe("thoughts that name a missing thought", () => {
  describe.each(ERAS)("over %s", (era) => {
    it("revising or branching from a thought that does not exist names the field", async () => {
      const user = await createUser();
      const client = await connect("thinking", user.token, era);
      await think(client, 1);
      await think(client, 2);

      expect(await callError(client, "sequentialthinking", thought(3, { isRevision: true, revisesThought: 7 }))).toBe(
        "invalid_input: revisesThought: thought 7 does not exist in the current thread (it has thoughts 1–2)",
      );
      expect(await callError(client, "sequentialthinking", thought(3, { branchFromThought: 5, branchId: "b" }))).toBe(
        "invalid_input: branchFromThought: thought 5 does not exist in the current thread (it has thoughts 1–2)",
      );
      expect(await think(client, 3)).toMatchObject({ thoughtHistoryLength: 3, branches: [] });
      await client.close();
    });
  });

  it("a revision on an empty history has nothing to revise", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token);
    const text = await callError(client, "sequentialthinking", thought(2, { isRevision: true, revisesThought: 1 }));
    expect(text).toMatch(/^invalid_input: revisesThought: thought 1 does not exist/);
    await client.close();
  });

  it("a new thread cannot revise a thought of the previous one", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token);
    await think(client, 1);
    await think(client, 2);
    await think(client, 1);
    const text = await callError(client, "sequentialthinking", thought(2, { isRevision: true, revisesThought: 2 }));
    expect(text).toBe("invalid_input: revisesThought: thought 2 does not exist in the current thread (it has thought 1)");
    await client.close();
  });
});
