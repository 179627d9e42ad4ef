/**
 * The 2025 revisions (2025-06-18, 2025-11-25) on /mcp/tasks, served by the stateless legacy lane:
 * the initialize handshake works but opens no session, every later request stands alone, and the
 * session operations (GET stream, DELETE) answer 405.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { createUser, type TestUser } from "../../helpers/users";
import { LEGACY_REVISIONS, legacyPost, mcp, rpcResponse } from "../../helpers/rpc";

let user: TestUser;
beforeAll(async () => {
  user = await createUser();
});

describe.each(LEGACY_REVISIONS)("%s over raw HTTP", (version) => {
  it("completes the initialize handshake without issuing a session", async () => {
    const res = await mcp(
      "tasks",
      legacyPost(user.token, undefined, {
        id: 0,
        method: "initialize",
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw-test", version: "1.0.0" } },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const { result } = await rpcResponse(res);
    expect(result).toMatchObject({ protocolVersion: version, serverInfo: { name: "mcp-edge-tasks" }, capabilities: { tools: {} } });

    const initialized = await mcp("tasks", legacyPost(user.token, version, { method: "notifications/initialized" }));
    expect(initialized.status).toBe(202);
  });

  it("lists tools with no prior initialize on this connection", async () => {
    const res = await mcp("tasks", legacyPost(user.token, version, { id: 1, method: "tools/list" }));
    expect(res.status).toBe(200);
    const tools = (await rpcResponse(res)).result?.["tools"] as { name: string }[];
    expect(tools.map((tool) => tool.name)).toContain("list_tasks");
  });

  it("calls a tool without a session", async () => {
    const res = await mcp(
      "tasks",
      legacyPost(user.token, version, {
        id: 2,
        method: "tools/call",
        params: { name: "add_task", arguments: { title: `Raw ${version}` } },
      }),
    );
    expect(res.status).toBe(200);
    expect((await rpcResponse(res)).result).toMatchObject({ structuredContent: { task: { title: `Raw ${version}` } } });
  });

  it("answers concurrent requests independently", async () => {
    const responses = await Promise.all(
      [10, 11, 12].map((id) => mcp("tasks", legacyPost(user.token, version, { id, method: "tools/list" }))),
    );
    expect(responses.map((res) => res.status)).toEqual([200, 200, 200]);
    expect((await Promise.all(responses.map(rpcResponse))).map((message) => message.id)).toEqual([10, 11, 12]);
  });

  it.each(["GET", "DELETE"])("answers %s (a session operation) with 405", async (method) => {
    const res = await mcp("tasks", {
      method,
      headers: { authorization: `Bearer ${user.token}`, accept: "text/event-stream", "mcp-protocol-version": version },
    });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
  });
});

describe.each(LEGACY_REVISIONS)("%s through the real client", (version) => {
  it("initializes, lists and calls tools", async () => {
    const client = await connect("tasks", user.token, version);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("add_task");
      const created = await callOk<{ task: { id: number; title: string } }>(client, "add_task", { title: `Via the ${version} client` });
      expect(created.task.title).toBe(`Via the ${version} client`);
    } finally {
      await client.close();
    }
  });
});
