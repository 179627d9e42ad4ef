/**
 * The gateway's call fast path (decisions 0013, 0033) must answer exactly as the SDK path would.
 * Each case sends the same tools/call through the Worker (fast path where it applies) and through
 * the one pipeline with `{ fastPaths: false }` (SDK alone) and compares the JSON-RPC messages. Only
 * the call's measured `_meta.execution_time_ms` differs between two real calls, so it is
 * compared as "a number" rather than by value. The upstreams are real: the upstream Worker's tasks
 * server (test/upstreams/upstream-worker.ts), and the fixture servers of test/upstreams.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadMcpServers } from "../../../workers/mcp-servers";
import { BREAKER_THRESHOLD } from "../../../workers/gateway/calls/breaker";
import { createGatewayServer } from "../../../workers/gateway/catalog/gateway.server";
import { serveMcp } from "../../../workers/mcp/pipeline";
import { createServices } from "../../../workers/services";
import { fullAccess } from "../../helpers/access";
import { registerTasksSource, TASKS_URL } from "../../helpers/gateway";
import { workerFetch } from "../../helpers/mcp";
import { ACCEPT_JSON_AND_SSE, rpcRequest as rawRpcRequest, rpcResponse } from "../../helpers/rpc";
import { api } from "../../helpers/rest";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { sourceHealth } from "../../helpers/upstreams-status";
import { createUser, type TestUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

const mcpServers = await loadMcpServers();

const FAST_VERSIONS = ["2025-06-18", "2025-11-25"] as const;
const gateway = createGatewayServer(mcpServers);

type Message = Record<string, unknown>;

function rpcRequest(user: TestUser, version: string, params: unknown, accept = ACCEPT_JSON_AND_SSE, extra: Message = {}): Request {
  return rawRpcRequest("/mcp", user.token, version, { id: "call-7", method: "tools/call", params, ...extra }, accept);
}

/** The JSON-RPC message of a JSON or single-event SSE response, with the measured duration made comparable. */
async function messageOf(response: Response): Promise<Message> {
  const message: Message = { ...(await rpcResponse(response)) };
  const meta = (message["result"] as { _meta?: Message } | undefined)?._meta;
  if (meta && "execution_time_ms" in meta) {
    expect(typeof meta["execution_time_ms"]).toBe("number");
    meta["execution_time_ms"] = "measured";
  }
  return message;
}

async function viaFastPath(request: Request) {
  const response = await workerFetch(request);
  return { status: response.status, contentType: response.headers.get("content-type"), message: await messageOf(response) };
}

async function viaSdk(user: TestUser, request: Request) {
  const ctx = createExecutionContext();
  const services = createServices(env, (promise) => ctx.waitUntil(promise));
  const toolCtx = { user: { id: user.id, name: user.name }, services, access: fullAccess(user) };
  const response = await serveMcp(request, gateway.definition, toolCtx, { fastPaths: false });
  return { status: response.status, contentType: response.headers.get("content-type"), message: await messageOf(response) };
}

/** Sends `params` both ways; `taken` says whether the fast path must have answered (JSON) or left it to the SDK (SSE). */
async function compare(user: TestUser, version: string, params: unknown, taken: boolean) {
  const fast = await viaFastPath(rpcRequest(user, version, params));
  const sdk = await viaSdk(user, rpcRequest(user, version, params));
  expect(sdk.contentType).toBe("text/event-stream");
  expect(fast.contentType).toBe(taken ? "application/json" : "text/event-stream");
  expect(fast.status).toBe(sdk.status);
  expect(fast.message).toEqual(sdk.message);
  return fast.message;
}

function resultOf(message: Message) {
  return message["result"] as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
    _meta?: Message;
  };
}

async function setOutputSchema(sourceId: number, tool: string, schema: unknown): Promise<void> {
  await env.DB.prepare("UPDATE source_tools SET output_schema = ? WHERE source_id = ? AND name = ?")
    .bind(JSON.stringify(schema), sourceId, tool)
    .run();
}

describe.each(FAST_VERSIONS)("gateway call fast path (%s)", (version) => {
  it("a successful call of a warm singleton source equals the SDK's answer, with _meta", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Fast Tasks", mcp_lifecycle_mode: "singleton" });
    await workerFetch(rpcRequest(owner, version, { name: "fast_tasks__add_task", arguments: { title: "Alpha", priority: "high" } }));
    const message = await compare(owner, version, { name: "fast_tasks__list_tasks", arguments: { limit: 5 } }, true);
    const result = resultOf(message);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ count: 1, tasks: [{ title: "Alpha" }] });
    expect(result._meta).toMatchObject({ source: "fast_tasks", execution_time_ms: "measured" });
    expect(message["id"]).toBe("call-7");
    // Absent arguments are `{}` on both paths.
    await compare(owner, version, { name: "fast_tasks__list_tasks" }, true);
  });

  it("the upstream's own isError result is passed through the same way", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Err Tasks", mcp_lifecycle_mode: "singleton" });
    const message = await compare(owner, version, { name: "err_tasks__complete_task", arguments: { task_id: 987_654_321 } }, true);
    expect(resultOf(message)).toMatchObject({ isError: true, _meta: { source: "err_tasks", error_type: "tool_error" } });
  });

  it("an upstream's arguments error (wrong argument type) is the upstream's answer on both paths", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Arg Tasks", mcp_lifecycle_mode: "singleton" });
    const message = await compare(owner, version, { name: "arg_tasks__list_tasks", arguments: { limit: "many" } }, true);
    expect(resultOf(message).isError).toBe(true);
  });

  it("an open circuit breaker answers the same typed circuit_open error", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Open Tasks", mcp_lifecycle_mode: "singleton" });
    // Real failures through the gateway open the breaker: the source's URL goes dead behind the API's back…
    const setUrl = (url: string) =>
      env.DB.prepare("UPDATE sources SET mcp_server_url = ? WHERE id = ?").bind(url, registered.source.id).run();
    await setUrl(`${UPSTREAM_ORIGIN}/api/no-such-mcp-endpoint`);
    for (let i = 0; i < BREAKER_THRESHOLD; i++)
      await workerFetch(rpcRequest(owner, version, { name: "open_tasks__list_tasks", arguments: {} }));
    // …and comes back: the open breaker still answers at once, on both paths.
    await setUrl(TASKS_URL);
    const message = await compare(owner, version, { name: "open_tasks__list_tasks", arguments: {} }, true);
    expect(resultOf(message)).toMatchObject({ isError: true, _meta: { source: "open_tasks", error_type: "circuit_open" } });
    expect(resultOf(message).content[0]!.text).toMatch(/circuit breaker is open/);
  });

  it("an upstream answering garbage is the same typed protocol error", async () => {
    const owner = await createUser();
    await registerSource(owner, fixtureUrl("malformed"), { name: "Garbage" });
    const message = await compare(owner, version, { name: "garbage__broken", arguments: {} }, true);
    expect(resultOf(message)).toMatchObject({ isError: true, _meta: { error_type: "protocol" } });
  });

  it("unknown, hidden, disabled, deleted and foreign tools fall through to the SDK's not-found answer", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const { body: kept } = await registerTasksSource(owner, owner, { name: "Kept", mcp_lifecycle_mode: "singleton" });
    const {
      body: { source: hiddenSource },
    } = await registerTasksSource(owner, owner, { name: "Veiled" });
    const {
      body: { source: disabled },
    } = await registerTasksSource(owner, owner, { name: "Off" });
    const {
      body: { source: deleted },
    } = await registerTasksSource(owner, owner, { name: "Gone" });
    expect((await api(owner, "PUT", "/api/gateway/hidden-tools/kept__delete_task")).status).toBe(200);
    expect((await api(owner, "PATCH", `/api/sources/${hiddenSource.id}`, { body: { hidden: true } })).status).toBe(200);
    expect((await api(owner, "PATCH", `/api/sources/${disabled.id}`, { body: { enabled: false } })).status).toBe(200);
    expect((await api(owner, "DELETE", `/api/sources/${deleted.id}`)).status).toBeLessThan(300);
    expect(kept.source.slug).toBe("kept");

    const cases: [TestUser, string][] = [
      [owner, "kept__no_such_tool"],
      [owner, "nosuchsource__list_tasks"],
      [owner, "kept__delete_task"],
      [owner, "veiled__list_tasks"],
      [owner, "off__list_tasks"],
      [owner, "gone__list_tasks"],
      [stranger, "kept__list_tasks"],
    ];
    for (const [user, name] of cases) {
      const message = await compare(user, version, { name, arguments: {} }, false);
      const text = JSON.stringify(message);
      expect(text, name).toMatch(/not found/);
    }
    // The foreign call reached nothing: the owner's tasks server saw no call from the stranger.
    const { body } = await api<{ tasks: unknown[] }>(owner, "GET", "/api/tasks");
    expect(body.tasks).toEqual([]);
  });

  it("arguments that are not an object, _meta, extra params and built-in names are left to the SDK", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Edge Tasks", mcp_lifecycle_mode: "singleton" });
    const message = await compare(owner, version, { name: "edge_tasks__list_tasks", arguments: ["not", "an", "object"] }, false);
    expect(JSON.stringify(message)).toMatch(/arguments must be an object|Invalid/);
    await compare(owner, version, { name: "edge_tasks__list_tasks", arguments: {}, _meta: { progressToken: 3 } }, false);
    await compare(owner, version, { name: "edge_tasks__list_tasks", arguments: {}, task: { ttl: 1000 } }, false);
    await compare(owner, version, { name: "list_tasks", arguments: { limit: 1 } }, false);
  });

  it("a tool whose output schema root is not an object is left to the SDK before any call, and called once", async () => {
    const owner = await createUser();
    const { body: echo } = await registerSource(owner, fixtureUrl("echo"), { name: "Shaped" });
    // As discovery would store it: a non-object output schema root (the SDK wraps structuredContent).
    await setOutputSchema(echo.source.id, "echo", { type: "array" });
    const wrapped = await compare(owner, version, { name: "shaped__echo", arguments: { word: "once" } }, false);
    expect(resultOf(wrapped).structuredContent).toEqual({ result: { word: "once" } });
    // Two requests (fast path declined, then SDK alone) reached the upstream once each.
    expect((await sourceHealth(owner, echo.source.id)).calls.window).toBe(2);
  });

  it("a result that breaks its tool's output contract is the same typed protocol error on both paths", async () => {
    const owner = await createUser();
    const { body: identity } = await registerSource(owner, fixtureUrl("identity"), { name: "Plain" });
    // An object output schema on a tool that returns no structuredContent.
    await setOutputSchema(identity.source.id, "whoami", { type: "object" });
    const missing = await compare(owner, version, { name: "plain__whoami", arguments: { user_id: 1, note: "n" } }, true);
    expect(resultOf(missing)).toMatchObject({ isError: true, _meta: { source: "plain", error_type: "protocol" } });
    expect(resultOf(missing).content[0]!.text).toMatch(/has an output schema but returned no structured content/);
    expect((await sourceHealth(owner, identity.source.id)).calls.window).toBe(2);
  });
});

describe("gateway call fast path eligibility", () => {
  it("a JSON-only Accept, no protocol version and a batch are served by the SDK as before", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "Strict", mcp_lifecycle_mode: "singleton" });
    const params = { name: "strict__list_tasks", arguments: {} };
    const jsonOnly = await workerFetch(rpcRequest(owner, "2025-06-18", params, "application/json"));
    const sdkJsonOnly = await serveMcp(
      rpcRequest(owner, "2025-06-18", params, "application/json"),
      gateway.definition,
      {
        user: { id: owner.id, name: owner.name },
        services: createServices(env, () => undefined),
        access: fullAccess(owner),
      },
      { fastPaths: false },
    );
    expect(jsonOnly.status).toBe(sdkJsonOnly.status);

    const old = await viaFastPath(rpcRequest(owner, "2025-03-26", params));
    expect(old.contentType).toBe("text/event-stream");
    expect(resultOf(old.message).structuredContent).toMatchObject({ count: 0 });
  });
});
