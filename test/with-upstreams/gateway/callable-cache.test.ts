/**
 * The per-isolate cache of callable tools (workers/gateway/calls/callable-cache.ts): a looked-up tool is
 * reused for the same user only, a change this isolate makes to the user's sources or hidden tools
 * takes effect on the next call, and an entry lives at most CALLABLE_TOOL_TTL_MS (the bound on a
 * change made in another isolate).
 */
import { describe, expect, it } from "vitest";
import { CALLABLE_TOOL_TTL_MS, CallableToolCache } from "../../../workers/gateway/calls/callable-cache";
import type { CallableTool } from "../../../workers/gateway/sources/sources.repo";
import { connectGateway, registerTasksSource } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";

describe("callable tools kept per isolate", { timeout: 60_000 }, () => {
  it("never hands one user's looked-up tool to another", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    await registerTasksSource(owner, owner, { name: "Mine Only" });
    const mine = await connectGateway(owner);
    expect((await mine.callTool({ name: "mine_only__add_task", arguments: { title: "owner's" } })).isError).toBeFalsy();

    const theirs = await connectGateway(stranger);
    await expect(theirs.callTool({ name: "mine_only__add_task", arguments: { title: "stranger's" } })).rejects.toThrow(/not found/);
    expect(await countRows("tasks", owner.id)).toBe(1);
  });

  it("drops what it kept of a user when this isolate changes their sources or hidden tools", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Changing" });
    const client = await connectGateway(owner);
    const call = () => client.callTool({ name: "changing__list_tasks", arguments: {} });
    expect((await call()).isError).toBeFalsy();

    expect((await api(owner, "PUT", "/api/gateway/hidden-tools/changing__list_tasks")).status).toBe(200);
    await expect(call()).rejects.toThrow(/not found/);
    expect((await api(owner, "DELETE", "/api/gateway/hidden-tools/changing__list_tasks")).status).toBe(200);
    const back = await call();
    expect(back.isError, textOf(back)).toBeFalsy();

    expect((await api(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { enabled: false } })).status).toBe(200);
    await expect(call()).rejects.toThrow(/not found/);
  });

  it("keeps an entry for the TTL, not longer", () => {
    let now = 1_000_000;
    const cache = new CallableToolCache(() => now);
    const tool: CallableTool = {
      source: {
        id: 1,
        userId: 7,
        name: "S",
        slug: "s",
        mcpServerUrl: "https://upstream.example/mcp",
        mcpTransportType: "streamable_http",
        mcpLifecycleMode: "transient",
        mcpEnvVars: [],
        bridgeToken: null,
        timeoutMs: 30_000,
        upstreamKind: "stateless",
        protocolVersion: "2025-11-25",
        discoverResult: null,
        upstreamAuth: "none",
      },
      tool: {
        name: "t",
        alias: "t",
        title: null,
        description: "",
        inputSchemaJson: "{}",
        outputSchemaJson: null,
        annotationsJson: "{}",
        idempotent: false,
        output: "none",
        held: false,
      },
    };
    cache.set(7, "s__t", tool);
    expect(cache.get(8, "s__t")).toBeUndefined();
    now += CALLABLE_TOOL_TTL_MS - 1;
    expect(cache.get(7, "s__t")).toBe(tool);
    now += 1;
    expect(cache.get(7, "s__t")).toBeUndefined();
  });
});
