/**
 * Protocol revision 2026-07-28 on /mcp/tasks: no handshake, a `_meta` envelope on every request, and
 * Mcp-Method / Mcp-Name headers that must agree with the body (so intermediaries can route on them).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { createUser, type TestUser } from "../../helpers/users";
import { mcp, MODERN, modernPost, rpcResponse } from "../../helpers/rpc";

const HEADER_MISMATCH = -32020;

let user: TestUser;
beforeAll(async () => {
  user = await createUser();
});

describe("2026-07-28 over raw HTTP", () => {
  it("answers server/discover with the supported revisions and capabilities", async () => {
    const res = await mcp("tasks", modernPost(user.token, "server/discover"));
    expect(res.status).toBe(200);
    const { result } = await rpcResponse(res);
    expect(result).toMatchObject({ supportedVersions: [MODERN], capabilities: { tools: {} } });
  });

  it("lists tools without any handshake or session", async () => {
    const res = await mcp("tasks", modernPost(user.token, "tools/list"));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const { result } = await rpcResponse(res);
    const tools = result?.["tools"] as { name: string }[];
    expect(tools.map((tool) => tool.name)).toContain("add_task");
    expect(result?.["_meta"]).toMatchObject({ "io.modelcontextprotocol/serverInfo": { name: "mcp-edge-tasks" } });
  });

  it("calls a tool when Mcp-Name matches params.name", async () => {
    const res = await mcp("tasks", modernPost(user.token, "tools/call", { name: "add_task", arguments: { title: "Raw modern call" } }));
    expect(res.status).toBe(200);
    const { result } = await rpcResponse(res);
    expect(result).toMatchObject({ structuredContent: { task: { title: "Raw modern call" } } });
  });

  it("rejects an Mcp-Name header that names another tool than the body", async () => {
    const init = modernPost(user.token, "tools/call", { name: "list_tasks", arguments: {} }, { "mcp-name": "delete_task" });
    const res = await mcp("tasks", init);
    expect(res.status).toBe(400);
    const { error } = await rpcResponse(res);
    expect(error?.code).toBe(HEADER_MISMATCH);
    expect(error?.message).toContain("delete_task");
  });

  it("rejects an Mcp-Method header that names another method than the body", async () => {
    const res = await mcp("tasks", modernPost(user.token, "tools/list", {}, { "mcp-method": "tools/call" }));
    expect(res.status).toBe(400);
    expect((await rpcResponse(res)).error?.code).toBe(HEADER_MISMATCH);
  });

  it("rejects a tools/call without the Mcp-Name header", async () => {
    const res = await mcp("tasks", modernPost(user.token, "tools/call", { name: "list_tasks", arguments: {} }, { "mcp-name": "" }));
    expect(res.status).toBe(400);
    expect((await rpcResponse(res)).error?.message).toContain("Mcp-Name");
  });

  it("rejects a request without the Mcp-Method header", async () => {
    const res = await mcp("tasks", modernPost(user.token, "tools/list", {}, { "mcp-method": "" }));
    expect(res.status).toBe(400);
    expect((await rpcResponse(res)).error?.message).toContain("Mcp-Method");
  });

  it("rejects a request without the MCP-Protocol-Version header", async () => {
    const res = await mcp("tasks", modernPost(user.token, "tools/list", {}, { "mcp-protocol-version": "" }));
    expect(res.status).toBe(400);
  });

  it("rejects a 2026-07-28 version header on a body without the envelope", async () => {
    const init = modernPost(user.token, "tools/list");
    init.body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const res = await mcp("tasks", init);
    expect(res.status).toBe(400);
    expect((await rpcResponse(res)).error?.code).toBe(-32602);
  });

  it("still requires the bearer token", async () => {
    const init = modernPost(user.token, "tools/list", {}, { authorization: "" });
    const res = await mcp("tasks", init);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });
});

describe("2026-07-28 through the real client", () => {
  it("negotiates 2026-07-28, lists and calls tools", async () => {
    const client = await connect("tasks", user.token, MODERN);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["add_task", "list_tasks"]));
      const created = await callOk<{ task: { id: number } }>(client, "add_task", { title: "Via the modern client" });
      const listed = await callOk<{ tasks: { id: number }[] }>(client, "list_tasks", {});
      expect(listed.tasks.map((task) => task.id)).toContain(created.task.id);
    } finally {
      await client.close();
    }
  });
});
