/**
 * Per-user hiding on /mcp: whole sources (PATCH hidden) and single tools — built-in or a source's —
 * over REST (/api/gateway/hidden-tools). Hidden tools leave the list and refuse calls; every list
 * and entry belongs to one user.
 */
import { describe, expect, it } from "vitest";
import { connectGateway, registerTasksSource, type SourceDetailBody } from "../../helpers/gateway";
import { countRows } from "../../helpers/db";
import { api, type ErrorBody } from "../../helpers/rest";
import { toolNames } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

interface HiddenList {
  hidden_tools: { name: string; source_id: number | null }[];
  count: number;
}

describe("hiding tools and sources", () => {
  it("hides a built-in tool from one user's /mcp only, refuses its calls, and unhides it", async () => {
    const user = await createUser();
    const other = await createUser();

    const hidden = await api(user, "PUT", "/api/gateway/hidden-tools/add_task");
    expect(hidden.status).toBe(200);
    expect(hidden.body).toEqual({ hidden: true, tool: { name: "add_task", source_id: null } });
    // Idempotent.
    expect((await api(user, "PUT", "/api/gateway/hidden-tools/add_task")).status).toBe(200);
    expect((await api<HiddenList>(user, "GET", "/api/gateway/hidden-tools")).body).toEqual({
      hidden_tools: [{ name: "add_task", source_id: null }],
      count: 1,
    });

    const client = await connectGateway(user);
    const names = await toolNames(client);
    expect(names).not.toContain("add_task");
    expect(names).toContain("list_tasks");
    await expect(client.callTool({ name: "add_task", arguments: { title: "should not exist" } })).rejects.toThrow(/not found/);
    expect(await countRows("tasks", user.id)).toBe(0);

    // Another user's list is untouched, and so is /mcp/tasks itself.
    expect(await toolNames(await connectGateway(other))).toContain("add_task");
    expect((await api<HiddenList>(other, "GET", "/api/gateway/hidden-tools")).body.count).toBe(0);

    const unhidden = await api(user, "DELETE", "/api/gateway/hidden-tools/add_task");
    expect(unhidden.body).toEqual({ hidden: false, tool: { name: "add_task", source_id: null } });
    expect(await toolNames(await connectGateway(user))).toContain("add_task");
  });

  it("hides one tool of a source, shown as hidden in the source's detail; the entry follows a source rename", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Hide Me" });

    const res = await api(owner, "PUT", "/api/gateway/hidden-tools/hide_me__delete_task");
    expect(res.body).toEqual({ hidden: true, tool: { name: "hide_me__delete_task", source_id: registered.source.id } });

    const client = await connectGateway(owner);
    const names = await toolNames(client);
    expect(names).toContain("hide_me__add_task");
    expect(names).not.toContain("hide_me__delete_task");
    await expect(client.callTool({ name: "hide_me__delete_task", arguments: { task_id: 1 } })).rejects.toThrow(/not found/);

    const detail = await api<SourceDetailBody>(owner, "GET", `/api/sources/${registered.source.id}`);
    expect(detail.body.tools.find((tool) => tool.name === "delete_task")?.hidden).toBe(true);
    expect(detail.body.tools.find((tool) => tool.name === "add_task")?.hidden).toBe(false);

    // Stored by source and tool, so a new slug keeps the tool hidden.
    await api(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { name: "Renamed" } });
    const renamed = await toolNames(await connectGateway(owner));
    expect(renamed).toContain("renamed__add_task");
    expect(renamed).not.toContain("renamed__delete_task");
    expect((await api<HiddenList>(owner, "GET", "/api/gateway/hidden-tools")).body.hidden_tools).toEqual([
      { name: "renamed__delete_task", source_id: registered.source.id },
    ]);

    // Deleting the source takes its hidden entries with it.
    await api(owner, "DELETE", `/api/sources/${registered.source.id}`);
    expect((await api<HiddenList>(owner, "GET", "/api/gateway/hidden-tools")).body.count).toBe(0);
  });

  it("hides a whole source (still enabled, discovered and health-checked) and shows it again", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Quiet" });
    const patched = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { hidden: true } });
    expect(patched.body.source).toMatchObject({ hidden: true, enabled: true });

    const client = await connectGateway(owner);
    expect((await toolNames(client)).some((name) => name.startsWith("quiet__"))).toBe(false);
    await expect(client.callTool({ name: "quiet__list_tasks", arguments: {} })).rejects.toThrow(/not found/);
    // A refresh still works on a hidden source.
    const refreshed = await api<SourceDetailBody>(owner, "POST", `/api/sources/${registered.source.id}/refresh`);
    expect(refreshed.body.source.last_discovery_error).toBeNull();

    await api(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { hidden: false } });
    expect(await toolNames(await connectGateway(owner))).toContain("quiet__list_tasks");
  });

  it("answers 404 for unknown names and for another user's source tools, 400 for malformed names", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    await registerTasksSource(owner, owner, { name: "Mine" });

    for (const name of ["no_such_tool", "mine__no_such_tool", "nobody__add_task"]) {
      const res = await api<ErrorBody>(owner, "PUT", `/api/gateway/hidden-tools/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    const foreign = await api<ErrorBody>(stranger, "PUT", "/api/gateway/hidden-tools/mine__add_task");
    expect(foreign.status).toBe(404);
    expect((await api<ErrorBody>(stranger, "DELETE", "/api/gateway/hidden-tools/mine__add_task")).status).toBe(404);
    expect(await toolNames(await connectGateway(owner))).toContain("mine__add_task");

    const malformed = await api<ErrorBody>(owner, "PUT", `/api/gateway/hidden-tools/${encodeURIComponent("bad name!")}`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_input");
  });
});
