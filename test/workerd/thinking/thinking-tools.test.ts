/** The sequentialthinking tool over MCP, the same in both protocol eras. */
import { describe, expect, it } from "vitest";
import { callOk, connect, ERAS, textOf } from "../../helpers/mcp";
import { think } from "../../helpers/thinking";
import { createUser } from "../../helpers/users";

describe.each(ERAS)("sequential thinking over %s", (era) => {
  it("lists the reference tool's input schema and the reset tool", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token, era);
    const { tools } = await client.listTools();
    await client.close();

    expect(tools.map((tool) => tool.name)).toEqual(["sequentialthinking", "reset_thinking"]);
    const [sequential, reset] = tools;
    expect(sequential!.inputSchema.required).toEqual(["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"]);
    expect(sequential!.inputSchema.properties).toMatchObject({
      thought: { type: "string" },
      nextThoughtNeeded: { type: "boolean" },
      thoughtNumber: { type: "integer", minimum: 1 },
      totalThoughts: { type: "integer", minimum: 1 },
      isRevision: { type: "boolean" },
      revisesThought: { type: "integer", minimum: 1 },
      branchFromThought: { type: "integer", minimum: 1 },
      branchId: { type: "string" },
      needsMoreThoughts: { type: "boolean" },
    });
    expect(Object.keys(sequential!.inputSchema.properties ?? {})).toHaveLength(9);
    expect(sequential!.description).toContain("latest 1,000 thoughts");
    expect(reset!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true, readOnlyHint: false });
  });

  it("records a chain with a revision and a branch, and raises totalThoughts when passed", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token, era);

    expect(await think(client, 1)).toEqual({
      thoughtNumber: 1,
      totalThoughts: 3,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: 1,
      thread: { id: expect.any(Number), thoughtCount: 1, branches: [] },
    });
    await think(client, 2);
    const revision = await think(client, 3, { isRevision: true, revisesThought: 1 });
    expect(revision).toMatchObject({ thoughtNumber: 3, thoughtHistoryLength: 3, branches: [] });

    const branch = await think(client, 4, { branchFromThought: 2, branchId: "alt" });
    expect(branch).toMatchObject({ thoughtNumber: 4, totalThoughts: 4, branches: ["alt"], thoughtHistoryLength: 4 });
    const second = await think(client, 5, { branchFromThought: 2, branchId: "other", totalThoughts: 2, needsMoreThoughts: true });
    expect(second).toMatchObject({ totalThoughts: 5, branches: ["alt", "other"], thread: { thoughtCount: 5, branches: ["alt", "other"] } });

    const last = await think(client, 6, { totalThoughts: 8, nextThoughtNeeded: false });
    expect(last).toMatchObject({ thoughtNumber: 6, totalThoughts: 8, nextThoughtNeeded: false, thoughtHistoryLength: 6 });
    await client.close();
  });

  it("answers the result as JSON text too, as the reference does", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token, era);
    const result = await client.callTool({
      name: "sequentialthinking",
      arguments: { thought: "t", thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
    });
    await client.close();
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it("a thought numbered 1 starts a new thread; history-wide fields keep counting", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token, era);
    const first = await think(client, 1);
    await think(client, 2, { branchFromThought: 1, branchId: "old" });

    const next = await think(client, 1);
    expect(next.thread.id).not.toBe(first.thread.id);
    expect(next).toMatchObject({ thoughtHistoryLength: 3, branches: ["old"], thread: { thoughtCount: 1, branches: [] } });
    // A revision numbered 1 continues the thread instead of starting one.
    const revision = await think(client, 1, { isRevision: true, revisesThought: 1 });
    expect(revision.thread).toEqual({ id: next.thread.id, thoughtCount: 2, branches: [] });
    await client.close();
  });

  it("reset_thinking deletes the history", async () => {
    const user = await createUser();
    const client = await connect("thinking", user.token, era);
    await think(client, 1);
    await think(client, 2);
    expect(await callOk(client, "reset_thinking")).toEqual({ cleared: 2 });
    expect(await callOk(client, "reset_thinking")).toEqual({ cleared: 0 });
    expect(await think(client, 1)).toMatchObject({ thoughtHistoryLength: 1, branches: [] });
    await client.close();
  });
});
