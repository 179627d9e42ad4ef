/**
 * The aggregated /mcp endpoint with the tasks server registered as a real remote source:
 * namespaced listing from the inventory, calls routed through the source's Durable Object,
 * owner isolation, disabled sources, and the audit event of every call.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseQueueEvent } from "../../../workers/queue-events";
import { eventually } from "../../helpers/eventually";
import { connectGateway, registerTasksSource } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";

describe("/mcp (gateway)", () => {
  it("lists the built-in tools and the source's tools as <slug>__<tool>", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Remote Tasks" });
    const client = await connectGateway(owner);
    const names = (await client.listTools()).tools.map((tool) => tool.name);

    expect(names).toContain("add_task");
    expect(names).toContain("remote_tasks__add_task");
    expect(names.filter((name) => name.startsWith("remote_tasks__")).length).toBe(registered.tools.length);
  });

  it("routes a call to the upstream, which acts as the source's configured token user", async () => {
    const owner = await createUser();
    const tokenUser = await createUser();
    await registerTasksSource(owner, tokenUser, { name: "Their Tasks", mcp_lifecycle_mode: "singleton" });
    const client = await connectGateway(owner);

    const result = await client.callTool({ name: "their_tasks__add_task", arguments: { title: "via the gateway" } });

    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ task: { title: "via the gateway" } });
    expect(result._meta).toMatchObject({ source: "their_tasks" });
    expect(typeof result._meta?.["execution_time_ms"]).toBe("number");
    expect(await countRows("tasks", tokenUser.id)).toBe(1);
    expect(await countRows("tasks", owner.id)).toBe(0);

    // The singleton's warm connection serves the next call too.
    const again = await client.callTool({ name: "their_tasks__list_tasks", arguments: {} });
    expect(again.structuredContent).toMatchObject({ count: 1 });
  });

  it("passes the upstream's own tool errors through as isError with error_type tool_error", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Errs" });
    const client = await connectGateway(owner);

    const result = await client.callTool({ name: "errs__complete_task", arguments: { task_id: 987654321 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("not found");
    expect(result._meta).toMatchObject({ source: "errs", error_type: "tool_error" });
  });

  it("shows a user only their own sources, and refuses calls to another's", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    await registerTasksSource(owner, owner, { name: "Private" });
    const client = await connectGateway(stranger);

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.some((name) => name.startsWith("private__"))).toBe(false);
    // Not in this user's list, so the SDK answers "unknown tool" without reaching any upstream.
    await expect(client.callTool({ name: "private__add_task", arguments: { title: "sneaky" } })).rejects.toThrow(/not found/);
    expect(await countRows("tasks", owner.id)).toBe(0);
  });

  it("drops a disabled source's tools from the list and refuses its calls", async () => {
    const owner = await createUser();
    const {
      body: { source },
    } = await registerTasksSource(owner, owner, { name: "Toggle" });
    await api(owner, "PATCH", `/api/sources/${source.id}`, { body: { enabled: false } });
    const client = await connectGateway(owner);

    expect((await client.listTools()).tools.some((tool) => tool.name.startsWith("toggle__"))).toBe(false);
    await expect(client.callTool({ name: "toggle__list_tasks", arguments: {} })).rejects.toThrow(/not found/);
  });

  it("records one GATEWAY_CALL audit event per call, without argument values", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Audited" });
    const client = await connectGateway(owner);
    await client.callTool({ name: "audited__add_task", arguments: { title: "secret-title-xyz" } });

    // The real queue delivers to the Worker's consumer, which writes audit_log.
    const row = await eventually(
      () =>
        env.DB.prepare("SELECT type, payload FROM audit_log WHERE user_id = ? AND type = 'GATEWAY_CALL'")
          .bind(owner.id)
          .first<{ type: string; payload: string }>(),
      "the queue consumer's GATEWAY_CALL row",
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(row.payload).not.toContain("secret-title-xyz");
    const parsed = parseQueueEvent(JSON.parse(row.payload));
    expect(parsed.success).toBe(true);
    expect(JSON.parse(row.payload)).toMatchObject({
      type: "GATEWAY_CALL",
      user_id: owner.id,
      task_id: null,
      gateway_call: { source_slug: "audited", tool: "add_task", outcome: "ok" },
    });
  });
});
