/**
 * The fast path must answer exactly as the SDK would. Each case sends the same request through
 * the Worker (fast path) and through `serveWithSdk` (SDK only) and compares the JSON-RPC results.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadMcpServers } from "../../../workers/mcp-servers";
import type { AuthUser } from "../../../workers/auth/auth.service";
import { createServices } from "../../../workers/services";
import { fullAccess } from "../../helpers/access";
import { serveWithSdk } from "../../../workers/mcp/hosting";
import type { McpServerDefinition } from "../../../workers/mcp/server-definition";
import { workerFetch } from "../../helpers/mcp";
import { rpcRequest as rawRpcRequest, rpcResponse } from "../../helpers/rpc";
import { createUser, type TestUser } from "../../helpers/users";

const mcpServers = await loadMcpServers();

const FAST_VERSIONS = ["2025-06-18", "2025-11-25"] as const;

/** `version` undefined sends no MCP-Protocol-Version header at all. */
function rpcRequest(server: string, user: TestUser, version: string | undefined, message: Record<string, unknown>, accept?: string) {
  return rawRpcRequest(`/mcp/${server}`, user.token, version, message, accept);
}

async function viaSdk(definition: McpServerDefinition, user: TestUser, request: Request) {
  const ctx = createExecutionContext();
  const authUser: AuthUser = { id: user.id, name: user.name };
  const services = createServices(env, (promise) => ctx.waitUntil(promise));
  return rpcResponse(await serveWithSdk(request, definition, { user: authUser, services, access: fullAccess(authUser) }));
}

async function viaWorker(request: Request) {
  const response = await workerFetch(request);
  return { contentType: response.headers.get("content-type"), body: await rpcResponse(response) };
}

describe.each(FAST_VERSIONS)("fast path (%s)", (version) => {
  it.each(mcpServers.map((definition) => [definition.name, definition] as const))(
    "tools/list on /mcp/%s equals the SDK's answer, from the fast path",
    async (name, definition) => {
      const user = await createUser();
      const fast = await viaWorker(rpcRequest(name, user, version, { method: "tools/list" }));
      expect(fast.contentType).toBe("application/json");
      const sdk = await viaSdk(definition, user, rpcRequest(name, user, version, { method: "tools/list" }));
      expect(fast.body).toEqual(sdk);
    },
  );

  it("read-only tools/call answers equal the SDK's", async () => {
    const user = await createUser();
    const tasks = mcpServers.find((definition) => definition.name === "tasks")!;
    for (const title of ["Alpha report", "Beta review", "Gamma report"]) {
      await workerFetch(
        rpcRequest("tasks", user, version, {
          method: "tools/call",
          params: { name: "add_task", arguments: { title, priority: "high", tags: ["x"] } },
        }),
      );
    }
    const calls = [
      { name: "list_tasks", arguments: { limit: 2, sort_by: "title" } },
      { name: "search_tasks", arguments: { query: "report" } },
      { name: "analytics_summary", arguments: {} },
      { name: "get_recurring_tasks" },
    ];
    for (const params of calls) {
      const fast = await viaWorker(rpcRequest("tasks", user, version, { method: "tools/call", params }));
      expect(fast.contentType, params.name).toBe("application/json");
      const sdk = await viaSdk(tasks, user, rpcRequest("tasks", user, version, { method: "tools/call", params }));
      expect(fast.body, params.name).toEqual(sdk);
    }
  });

  it("a tool's own error result is the same on both paths", async () => {
    const user = await createUser();
    const tasks = mcpServers.find((definition) => definition.name === "tasks")!;
    const params = { name: "complete_task", arguments: { task_id: 987_654_321 } };
    const fast = await viaWorker(rpcRequest("tasks", user, version, { method: "tools/call", params }));
    const sdk = await viaSdk(tasks, user, rpcRequest("tasks", user, version, { method: "tools/call", params }));
    expect(fast.body).toEqual(sdk);
    expect(fast.body["result"]).toMatchObject({ isError: true });
  });

  it.each([
    ["a tampered cursor", "tasks", { name: "list_tasks", arguments: { cursor: btoa('{"o":1e99}') } }],
    ["a due date past 9999", "tasks", { name: "add_task", arguments: { title: "t", due_date: "9999-12-31T23:59:59-23:59" } }],
    ["a tag with a comma", "tasks", { name: "add_task", arguments: { title: "t", tags: ["a,b"] } }],
    [
      "metadata nested too deep",
      "rag",
      {
        name: "rag_ingest",
        arguments: { documents: [{ text: "x", metadata: JSON.parse(`${'{"a":'.repeat(40)}{}${"}".repeat(40)}`) as unknown }] },
      },
    ],
  ])("answers %s exactly as the SDK does, writing nothing", async (_label, server, params) => {
    const user = await createUser();
    const definition = mcpServers.find((candidate) => candidate.name === server)!;
    const fast = await viaWorker(rpcRequest(server, user, version, { method: "tools/call", params }));
    const sdk = await viaSdk(definition, user, rpcRequest(server, user, version, { method: "tools/call", params }));
    expect(fast.body).toEqual(sdk);
    expect(fast.body["result"]).toMatchObject({ isError: true });
    const rows = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM tasks WHERE user_id = ?1) + (SELECT count(*) FROM rag_documents WHERE user_id = ?1) AS n",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });

  it.each([
    ["invalid arguments", { method: "tools/call", params: { name: "add_task", arguments: { title: "" } } }],
    ["an unknown tool", { method: "tools/call", params: { name: "no_such_tool", arguments: {} } }],
    ["a progress token", { method: "tools/call", params: { name: "analytics_summary", arguments: {}, _meta: { progressToken: 1 } } }],
    ["a list cursor", { method: "tools/list", params: { cursor: "abc" } }],
    ["another method", { method: "ping" }],
  ])("falls through to the SDK for %s", async (_label, rpc) => {
    const user = await createUser();
    const tasks = mcpServers.find((definition) => definition.name === "tasks")!;
    const fast = await viaWorker(rpcRequest("tasks", user, version, rpc));
    expect(fast.contentType).toBe("text/event-stream");
    const sdk = await viaSdk(tasks, user, rpcRequest("tasks", user, version, rpc));
    expect(fast.body).toEqual(sdk);
  });
});

describe("fast path eligibility", () => {
  it("leaves 2025-03-26, a missing version header and JSON-only Accept to the SDK", async () => {
    const user = await createUser();
    const list = { method: "tools/list" };
    for (const version of ["2025-03-26", undefined]) {
      const response = await viaWorker(rpcRequest("tasks", user, version, list));
      expect(response.contentType).toBe("text/event-stream");
      expect(response.body["result"]).toMatchObject({ tools: expect.any(Array) });
    }
    const jsonOnly = await workerFetch(rpcRequest("tasks", user, "2025-06-18", list, "application/json"));
    expect(jsonOnly.status).toBe(406);
  });

  it("still answers malformed JSON with the SDK's parse error", async () => {
    const user = await createUser();
    const request = new Request("http://localhost/mcp/tasks", {
      method: "POST",
      headers: {
        host: "localhost",
        authorization: `Bearer ${user.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: "{not json",
    });
    const response = await workerFetch(request);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });
});
