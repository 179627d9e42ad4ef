/**
 * The gateway's admin tools on /mcp: the whole source lifecycle from an MCP client, with the same
 * validation and owner scoping as REST; secrets never appear in any output; only on /mcp; every
 * call — admin or other built-in — audited as GATEWAY_CALL without argument values.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sourceDetail } from "../../../workers/gateway/sources/sources.schema";
import { parseQueueEvent } from "../../../workers/queue-events";
import { eventually } from "../../helpers/eventually";
import { connectGateway, TASKS_URL } from "../../helpers/gateway";
import { GATEWAY_ADMIN_TOOLS } from "../../workerd/contract/servers";
import { connect, textOf } from "../../helpers/mcp";
import { toolNames } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

// The contracted names (test/workerd/contract/servers.ts).
const ADMIN = GATEWAY_ADMIN_TOOLS;

describe("gateway admin tools", { timeout: 60_000 }, () => {
  it("are listed on /mcp with titles, annotations and output schemas, and not on /mcp/tasks", async () => {
    const user = await createUser();
    const { tools } = await (await connectGateway(user)).listTools();
    for (const name of ADMIN) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.title, name).toBeTruthy();
      expect(tool!.description!.length, name).toBeGreaterThan(40);
      expect(tool!.outputSchema, name).toBeDefined();
      expect(typeof tool!.annotations?.readOnlyHint, name).toBe("boolean");
    }
    expect(tools.find((t) => t.name === "gateway_delete_source")!.annotations).toMatchObject({ destructiveHint: true });
    const tasks = await toolNames(await connect("tasks", user.token));
    expect(tasks.some((name) => name.startsWith("gateway_"))).toBe(false);
  });

  it("adds, lists, updates, refreshes, checks and deletes a source; secrets never come back", async () => {
    const user = await createUser();
    const client = await connectGateway(user);

    const added = await client.callTool({
      name: "gateway_add_source",
      arguments: { name: "Via Admin", url: TASKS_URL, mcp_env_vars: [{ name: "Authorization", value: `Bearer ${user.token}` }] },
    });
    expect(added.isError, textOf(added)).toBeFalsy();
    const detail = sourceDetail.parse(added.structuredContent);
    expect(detail.source.slug).toBe("via_admin");
    expect(detail.source.mcp_env_vars).toEqual([{ name: "Authorization", secret: true }]);
    expect(detail.tools.map((tool) => tool.gateway_name)).toContain("via_admin__add_task");
    expect(JSON.stringify(added)).not.toContain(user.token);
    const id = detail.source.id;

    // The new tools are on the next listing (a fresh request reads the inventory).
    const again = await connectGateway(user);
    expect(await toolNames(again)).toContain("via_admin__add_task");

    const listed = await again.callTool({ name: "gateway_list_sources", arguments: {} });
    expect(listed.structuredContent).toMatchObject({ count: 1, sources: [{ id, slug: "via_admin" }] });
    expect(JSON.stringify(listed)).not.toContain(user.token);

    const disabled = await again.callTool({ name: "gateway_update_source", arguments: { source_id: id, enabled: false } });
    expect(sourceDetail.parse(disabled.structuredContent).source.enabled).toBe(false);
    expect(await toolNames(await connectGateway(user))).not.toContain("via_admin__add_task");
    const enabled = await again.callTool({ name: "gateway_update_source", arguments: { source_id: id, enabled: true } });
    expect(sourceDetail.parse(enabled.structuredContent).source.enabled).toBe(true);

    const refreshed = await again.callTool({ name: "gateway_refresh_source", arguments: { source_id: id } });
    expect(refreshed.isError, textOf(refreshed)).toBeFalsy();

    const call = await (await connectGateway(user)).callTool({ name: "via_admin__list_tasks", arguments: {} });
    expect(call.isError, textOf(call)).toBeFalsy();
    const health = await again.callTool({ name: "gateway_source_health", arguments: { source_id: id } });
    expect(health.structuredContent).toMatchObject({ count: 1, sources: [{ source_id: id, state: "healthy", breaker: "closed" }] });
    expect((health.structuredContent as { sources: { calls: { window: number } }[] }).sources[0]!.calls.window).toBeGreaterThanOrEqual(1);

    const deleted = await again.callTool({ name: "gateway_delete_source", arguments: { source_id: id } });
    expect(deleted.structuredContent).toEqual({ deleted: true, id });
    expect((await again.callTool({ name: "gateway_list_sources", arguments: {} })).structuredContent).toMatchObject({ count: 0 });
  });

  it("answers bad input and foreign ids as isError naming the problem", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const ownerClient = await connectGateway(owner);
    const added = await ownerClient.callTool({ name: "gateway_add_source", arguments: { name: "Owned", url: TASKS_URL } });
    const id = sourceDetail.parse(added.structuredContent).source.id;

    const strangerClient = await connectGateway(stranger);
    for (const [name, args] of [
      ["gateway_update_source", { source_id: id, enabled: false }],
      ["gateway_refresh_source", { source_id: id }],
      ["gateway_delete_source", { source_id: id }],
      ["gateway_source_health", { source_id: id }],
    ] as const) {
      const result = await strangerClient.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toContain(`not_found: Source ${id} not found`);
    }
    const hide = await strangerClient.callTool({ name: "gateway_hide_tool", arguments: { name: "owned__add_task" } });
    expect(hide.isError).toBe(true);
    expect(textOf(hide)).toContain("not_found");

    const noUrl = await ownerClient.callTool({ name: "gateway_add_source", arguments: { name: "No Url" } });
    expect(noUrl.isError).toBe(true);
    expect(textOf(noUrl)).toMatch(/url/);
    const nothing = await ownerClient.callTool({ name: "gateway_update_source", arguments: { source_id: id } });
    expect(nothing.isError).toBe(true);
    expect(textOf(nothing)).toContain("at least one field");
    const badUrl = await ownerClient.callTool({ name: "gateway_add_source", arguments: { name: "Meta", url: "http://169.254.169.254/" } });
    expect(badUrl.isError).toBe(true);
    expect(textOf(badUrl)).toContain("is a cloud metadata service");
  });

  it("hides and unhides a built-in tool of another server (thinking) through the admin tools", async () => {
    const user = await createUser();
    const client = await connectGateway(user);
    const hidden = await client.callTool({ name: "gateway_hide_tool", arguments: { name: "sequentialthinking" } });
    expect(hidden.structuredContent).toEqual({ hidden: true, tool: { name: "sequentialthinking", source_id: null } });
    expect(await toolNames(await connectGateway(user))).not.toContain("sequentialthinking");
    const list = await client.callTool({ name: "gateway_list_hidden_tools", arguments: {} });
    expect(list.structuredContent).toEqual({ hidden_tools: [{ name: "sequentialthinking", source_id: null }], count: 1 });
    await client.callTool({ name: "gateway_unhide_tool", arguments: { name: "sequentialthinking" } });
    expect(await toolNames(await connectGateway(user))).toContain("sequentialthinking");
  });

  it("audits built-in and admin calls on /mcp as builtin:<server>, never with argument values", async () => {
    const user = await createUser();
    const client = await connectGateway(user);
    await client.callTool({ name: "add_task", arguments: { title: "audit-secret-title-123" } });
    await client.callTool({ name: "complete_task", arguments: { task_id: 999_999_999 } });
    await client.callTool({ name: "gateway_list_sources", arguments: {} });

    const rows = await eventually(
      async () => {
        const { results } = await env.DB.prepare("SELECT payload FROM audit_log WHERE user_id = ? AND type = 'GATEWAY_CALL'")
          .bind(user.id)
          .all<{ payload: string }>();
        return results.length >= 3 ? results : undefined;
      },
      "3 GATEWAY_CALL rows",
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const calls = rows.map((row) => {
      expect(row.payload).not.toContain("audit-secret-title-123");
      const parsed = parseQueueEvent(JSON.parse(row.payload));
      expect(parsed.success).toBe(true);
      return (JSON.parse(row.payload) as { gateway_call: { source_id: number | null; source_slug: string; tool: string; outcome: string } })
        .gateway_call;
    });
    expect(calls).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source_id: null, source_slug: "builtin:tasks", tool: "add_task", outcome: "ok" }),
        expect.objectContaining({ source_id: null, source_slug: "builtin:tasks", tool: "complete_task", outcome: "tool_error" }),
        expect.objectContaining({ source_id: null, source_slug: "builtin:gateway", tool: "gateway_list_sources", outcome: "ok" }),
      ]),
    );
  });
});
