/** GET /api/servers: the MCP servers the console lists, each pointing at a live MCP endpoint. */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { createUser } from "../../helpers/users";
import { modernPost, rpcResponse } from "../../helpers/rpc";

interface ServerInfo {
  name: string;
  route: string;
  title: string;
  description: string;
  version: string;
}

describe("GET /api/servers", () => {
  it("lists every MCP server with its route, title and description", async () => {
    const user = await createUser();
    const res = await api<{ servers: ServerInfo[] }>(user, "GET", "/api/servers");
    expect(res.status).toBe(200);
    expect(res.body.servers.map((s) => [s.name, s.route])).toEqual([
      ["tasks", "/mcp/tasks"],
      ["rag", "/mcp/rag"],
      ["thinking", "/mcp/thinking"],
      ["gateway", "/mcp"],
    ]);
    for (const server of res.body.servers) {
      expect(server.title, server.name).toBeTruthy();
      expect(server.description.length, server.name).toBeGreaterThan(20);
      expect(server.version, server.name).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it("points at endpoints that answer tools/list over MCP for the same user", async () => {
    const user = await createUser();
    const { body } = await api<{ servers: ServerInfo[] }>(user, "GET", "/api/servers");
    for (const server of body.servers) {
      const res = await workerFetch(`http://localhost${server.route}`, modernPost(user.token, "tools/list"));
      expect(res.status, server.route).toBe(200);
      const tools = (await rpcResponse(res)).result?.["tools"] as { name: string }[];
      expect(tools.length, server.route).toBeGreaterThan(0);
    }
  });

  it("needs a token, like every /api route", async () => {
    const res = await api<ErrorBody>(undefined, "GET", "/api/servers");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
  });
});
