/**
 * A spec method called with params its schema rejects is the caller's error: JSON-RPC -32602
 * Invalid params naming the parameter, never -32603 Internal error (which the SDK answers today,
 * modelcontextprotocol/typescript-sdk#2284). A method the endpoint does not serve stays -32601.
 * Found by the fuzzer (test/workerd/fuzz): resources/read without params on /mcp/tasks.
 */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../../helpers/mcp";
import { createUser, type TestUser } from "../../helpers/users";
import { envelope, type JsonRpcResponse, rpcResponse } from "../../helpers/rpc";

async function call(user: TestUser, path: string, version: string, method: string, params: Record<string, unknown> | undefined) {
  const withMeta = version === "2026-07-28" ? { ...params, _meta: envelope() } : params;
  const res = await workerFetch(`http://localhost${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${user.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      ...(version === "2026-07-28" ? { "mcp-method": method } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method, ...(withMeta === undefined ? {} : { params: withMeta }) }),
  });
  return { status: res.status, message: await rpcResponse(res) };
}

type Case = [method: string, params: Record<string, unknown> | undefined, names: string];

const BOTH_ERAS: Case[] = [
  ["resources/read", undefined, "params"],
  ["resources/read", {}, "params.uri"],
  ["resources/read", { uri: 5 }, "params.uri"],
  ["prompts/get", {}, "params.name"],
  ["completion/complete", {}, "params.ref"],
  ["tools/list", { cursor: 5 }, "params.cursor"],
  ["resources/list", { cursor: 5 }, "params.cursor"],
  ["resources/templates/list", { cursor: [] }, "params.cursor"],
  ["prompts/list", { cursor: {} }, "params.cursor"],
];
const LEGACY_ONLY: Case[] = [
  ["logging/setLevel", { level: "loud" }, "params.level"],
  ["initialize", {}, "params.protocolVersion"],
];

function expectInvalidParams(message: JsonRpcResponse, method: string, names: string): void {
  expect(message.id).toBe(3);
  expect(message.error?.code, JSON.stringify(message)).toBe(-32602);
  expect(message.error?.message).toContain(`Invalid params for ${method}: ${names}`);
}

describe.each(["2025-06-18", "2025-11-25", "2026-07-28"])("/mcp/tasks (%s)", (version) => {
  const cases = version === "2026-07-28" ? BOTH_ERAS : [...BOTH_ERAS, ...LEGACY_ONLY];
  it.each(cases)("%s %j is -32602 naming %s", async (method, params, names) => {
    const user = await createUser();
    const { status, message } = await call(user, "/mcp/tasks", version, method, params);
    expect(status).toBe(200);
    expectInvalidParams(message, method, names);
  });
});

describe("endpoints that do not serve a method", () => {
  it.each([
    // /mcp and /mcp/rag serve resources: their skills (decision 0072).
    ["/mcp/thinking", "resources/read"],
    ["/mcp/rag", "prompts/get"],
    ["/mcp/thinking", "completion/complete"],
  ])("%s answers %s with -32601, whatever its params", async (path, method) => {
    const user = await createUser();
    for (const version of ["2025-06-18", "2026-07-28"]) {
      const { message } = await call(user, path, version, method, {});
      expect(message.error?.code).toBe(-32601);
    }
  });

  it("initialize and logging/setLevel do not exist in 2026-07-28: still -32601", async () => {
    const user = await createUser();
    for (const [method, params] of LEGACY_ONLY) {
      expect((await call(user, "/mcp/tasks", "2026-07-28", method, params)).message.error?.code).toBe(-32601);
    }
  });
});

describe("the gateway and the other servers", () => {
  it.each(["/mcp", "/mcp/rag", "/mcp/thinking"])("%s: tools/list with a numeric cursor is -32602", async (path) => {
    const user = await createUser();
    for (const version of ["2025-06-18", "2026-07-28"]) {
      expectInvalidParams((await call(user, path, version, "tools/list", { cursor: 5 })).message, "tools/list", "params.cursor");
    }
  });
});
