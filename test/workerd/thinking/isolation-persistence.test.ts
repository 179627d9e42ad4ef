/**
 * The history belongs to one user and outlives the request: separate connections (each request a
 * fresh, stateless McpServer) continue the same thread, and another user never sees it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { callError } from "../../helpers/tasks";
import { think, thought } from "../../helpers/thinking";
import { createUser } from "../../helpers/users";
import { ThinkingService } from "../../../workers/thinking/thinking.service";

describe("thinking history across requests and users", () => {
  it("a second connection, in the other era, continues the first one's thread", async () => {
    const user = await createUser();
    const first = await connect("thinking", user.token, "2026-07-28");
    const opened = await think(first, 1);
    await think(first, 2, { branchFromThought: 1, branchId: "a" });
    await first.close();

    const second = await connect("thinking", user.token, "2025-11-25");
    const next = await think(second, 3, { isRevision: true, revisesThought: 2 });
    expect(next).toMatchObject({ thoughtHistoryLength: 3, branches: ["a"], thread: { id: opened.thread.id, thoughtCount: 3 } });
    await second.close();

    const stored = await new ThinkingService(env.THINKING).history(user.id);
    expect(stored.map((entry) => [entry.thoughtNumber, entry.branchId, entry.revisesThought])).toEqual([
      [1, undefined, undefined],
      [2, "a", undefined],
      [3, undefined, 2],
    ]);
  });

  it("user B never sees, revises or resets user A's history", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const a = await connect("thinking", alice.token);
    const b = await connect("thinking", bob.token);

    await think(a, 1);
    await think(a, 2, { branchFromThought: 1, branchId: "alice-branch" });
    await think(a, 3);

    expect(await callError(b, "sequentialthinking", thought(4, { isRevision: true, revisesThought: 3 }))).toMatch(
      /revisesThought: thought 3 does not exist/,
    );
    expect(await callOk(b, "reset_thinking")).toEqual({ cleared: 0 });
    expect(await think(b, 1)).toMatchObject({ thoughtHistoryLength: 1, branches: [] });

    expect(await think(a, 4)).toMatchObject({ thoughtHistoryLength: 4, branches: ["alice-branch"] });
    expect(await callOk(a, "reset_thinking")).toEqual({ cleared: 4 });
    expect(await think(b, 2)).toMatchObject({ thoughtHistoryLength: 2 });
    await a.close();
    await b.close();
  });

  it("each user has their own Durable Object, named by user id", async () => {
    const service = new ThinkingService(env.THINKING);
    expect(service.forUser(1).id.equals(env.THINKING.idFromName("user:1"))).toBe(true);
    expect(service.forUser(1).id.equals(service.forUser(2).id)).toBe(false);
  });
});
