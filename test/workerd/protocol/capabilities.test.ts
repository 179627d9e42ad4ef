/**
 * Every endpoint is stateless: no session and no stream outlives a request, so no server here can
 * ever send notifications/…/list_changed. Advertising `listChanged: true` would promise clients a
 * notification they never get; each server advertises only what it sends, and 2026-07-28 clients
 * rely on the list results' cache hints instead (the gateway's tools/list: ttlMs 30 s, private).
 */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../../helpers/mcp";
import { createUser } from "../../helpers/users";
import { envelope, type JsonRpcResponse, rpcResponse } from "../../helpers/rpc";

const ENDPOINTS = ["/mcp", "/mcp/tasks", "/mcp/rag", "/mcp/thinking"];

type Capabilities = Record<string, Record<string, unknown> | undefined>;

async function rpc(
  path: string,
  token: string,
  version: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<JsonRpcResponse> {
  const res = await workerFetch(`http://localhost${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      ...(version === "2026-07-28" ? { "mcp-method": method } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: version === "2026-07-28" ? { ...params, _meta: envelope() } : params }),
  });
  expect(res.status).toBe(200);
  return rpcResponse(res);
}

function expectNoListChanged(capabilities: Capabilities, where: string): void {
  expect(capabilities["tools"], where).toBeDefined();
  for (const kind of ["tools", "resources", "prompts"]) {
    expect(capabilities[kind]?.["listChanged"], `${where} ${kind}.listChanged`).not.toBe(true);
    expect(capabilities[kind]?.["subscribe"], `${where} ${kind}.subscribe`).not.toBe(true);
  }
}

describe.each(ENDPOINTS)("capabilities of %s", (path) => {
  it("initialize (2025-06-18) advertises no list_changed notifications", async () => {
    const user = await createUser();
    const { result } = await rpc(path, user.token, "2025-06-18", "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "capabilities-test", version: "1.0.0" },
    });
    expectNoListChanged(result!["capabilities"] as Capabilities, path);
  });

  it("server/discover (2026-07-28) advertises none either", async () => {
    const user = await createUser();
    const { result } = await rpc(path, user.token, "2026-07-28", "server/discover");
    expectNoListChanged(result!["capabilities"] as Capabilities, path);
  });
});

describe("the gateway's list cache hint", () => {
  it("tells 2026-07-28 clients how long its tools/list holds instead", async () => {
    const user = await createUser();
    const { result } = await rpc("/mcp", user.token, "2026-07-28", "tools/list");
    expect(result).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
  });

  it.each(["resources/list", "resources/templates/list", "prompts/list"])("and the same for its %s (decision 0068)", async (method) => {
    const user = await createUser();
    const { result } = await rpc("/mcp", user.token, "2026-07-28", method);
    expect(result).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
  });
});

describe("what /mcp advertises beyond tools (decision 0068)", () => {
  it("resources, prompts and completions, which its built-in tasks server serves there; the same for every user", async () => {
    for (const user of [await createUser(), await createUser()]) {
      const { result } = await rpc("/mcp", user.token, "2025-11-25", "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "capabilities-test", version: "1.0.0" },
      });
      const capabilities = result!["capabilities"] as Capabilities;
      expect(capabilities["resources"]).toEqual({ listChanged: false });
      expect(capabilities["prompts"]).toEqual({ listChanged: false });
      expect(capabilities["completions"]).toEqual({});
    }
  });
});
