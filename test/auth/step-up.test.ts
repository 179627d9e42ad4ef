/**
 * Per-tool scopes with step-up: a token that may not make a call gets one 403 naming every scope
 * the call needs, before any tool runs, on every serving path (the SDK, the 2025-era fast path, the
 * gateway's call fast path) — and a client that re-authorizes with the union then succeeds.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { invokeTool, defineTool, type ToolDefinition } from "../../workers/mcp/tool";
import { buildServer } from "../../workers/mcp/hosting";
import { taskTools } from "../../workers/tasks/tasks.tools";
import { z } from "zod";
import { createServices } from "../../workers/services";
import { fullAccess } from "../helpers/access";
import { callOk, workerFetch } from "../helpers/mcp";
import { authorizeInBrowser, Browser, mcpClient, oauthTransport, TestOAuthProvider, connectWithOAuth } from "../helpers/oauth";
import { api } from "../helpers/rest";
import { registerTasksSource } from "../helpers/gateway";
import { createUser, withScopedToken, type TestUser } from "../helpers/users";
import { legacyPost, modernPost, rpcResponse } from "../helpers/rpc";
import { UnauthorizedError } from "@modelcontextprotocol/client";

const ORIGIN = "http://localhost";

function expectStepUp(res: Response, scope: string, resource: string): void {
  expect(res.status).toBe(403);
  const challenge = res.headers.get("www-authenticate")!;
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="insufficient_scope"');
  expect(challenge).toContain(`scope="${scope}"`);
  expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource${resource}"`);
}

async function taskCount(user: TestUser): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM tasks WHERE user_id = ?").bind(user.id).first<{ n: number }>();
  return row!.n;
}

const ADD_TASK = { name: "add_task", arguments: { title: "must not be created" } };

describe("the scope gate on every serving path", () => {
  it("the 2025-era fast path answers 403 naming tasks:write before add_task runs", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await workerFetch(
        `${ORIGIN}/mcp/tasks`,
        legacyPost(reader.token, version, { id: 1, method: "tools/call", params: ADD_TASK }),
      );
      expectStepUp(res, "tasks:write", "/mcp/tasks");
    }
    expect(await taskCount(reader)).toBe(0);
  });

  it("the 2026-07-28 SDK path answers the same 403", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    const res = await workerFetch(`${ORIGIN}/mcp/tasks`, modernPost(reader.token, "tools/call", ADD_TASK));
    expectStepUp(res, "tasks:write", "/mcp/tasks");
    expect(await taskCount(reader)).toBe(0);
  });

  it("a read the token allows goes through on both paths", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    const legacy = await workerFetch(
      `${ORIGIN}/mcp/tasks`,
      legacyPost(reader.token, "2025-11-25", { id: 1, method: "tools/call", params: { name: "list_tasks", arguments: {} } }),
    );
    expect(legacy.status).toBe(200);
    expect((await rpcResponse(legacy)).result?.["isError"]).toBeUndefined();
    const modern = await workerFetch(`${ORIGIN}/mcp/tasks`, modernPost(reader.token, "tools/call", { name: "list_tasks", arguments: {} }));
    expect(modern.status).toBe(200);
  });

  it("write implies read: a tasks:write token may list", async () => {
    const writer = await withScopedToken(await createUser(), ["tasks:write"]);
    const res = await workerFetch(`${ORIGIN}/mcp/tasks`, modernPost(writer.token, "tools/call", { name: "list_tasks", arguments: {} }));
    expect(res.status).toBe(200);
  });

  it("resources and prompts of /mcp/tasks need tasks:read", async () => {
    const other = await withScopedToken(await createUser(), ["rag:read"]);
    const res = await workerFetch(`${ORIGIN}/mcp/tasks`, modernPost(other.token, "resources/read", { uri: "task://1" }));
    expectStepUp(res, "tasks:read", "/mcp/tasks");
    const prompt = await workerFetch(
      `${ORIGIN}/mcp/tasks`,
      modernPost(other.token, "prompts/get", { name: "review_tasks", arguments: {} }),
    );
    expectStepUp(prompt, "tasks:read", "/mcp/tasks");
  });

  it("the gateway refuses a built-in it does not grant, with the built-in's own scope", async () => {
    const reader = await withScopedToken(await createUser(), ["gateway:read", "tasks:read"]);
    const res = await workerFetch(
      `${ORIGIN}/mcp`,
      legacyPost(reader.token, "2025-11-25", { id: 1, method: "tools/call", params: ADD_TASK }),
    );
    expectStepUp(res, "tasks:write", "/mcp");
    const admin = await workerFetch(
      `${ORIGIN}/mcp`,
      modernPost(reader.token, "tools/call", { name: "gateway_delete_source", arguments: { source_id: 1 } }),
    );
    expectStepUp(admin, "gateway:admin", "/mcp");
    expect(await taskCount(reader)).toBe(0);
  });

  it("the gateway's call fast path refuses a source tool without gateway:read, before the upstream is called", async () => {
    const owner = await createUser();
    // The upstream Worker's /mcp/tasks as a source: a real upstream on another origin.
    const source = await registerTasksSource(owner, owner, { mcp_lifecycle_mode: "singleton" });
    expect(source.status).toBe(201);
    const slug = source.body.source.slug;
    const tasksOnly = await withScopedToken(owner, ["tasks:read", "tasks:write"]);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await workerFetch(
        `${ORIGIN}/mcp`,
        legacyPost(tasksOnly.token, version, { id: 1, method: "tools/call", params: { name: `${slug}__list_tasks`, arguments: {} } }),
      );
      expectStepUp(res, "gateway:read", "/mcp");
    }
    const health = await api<{ calls: { window: number } }>(owner, "GET", `/api/sources/${source.body.source.id}/health`);
    expect(health.body.calls.window).toBe(0);
    // The owner's full token still reaches the same tool through the same path.
    const ok = await workerFetch(
      `${ORIGIN}/mcp`,
      legacyPost(owner.token, "2025-11-25", { id: 1, method: "tools/call", params: { name: `${slug}__list_tasks`, arguments: {} } }),
    );
    expect(ok.status).toBe(200);
  });

  it("a batch is refused as a whole when any call in it needs more", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    // Batches exist only before 2025-06-18 (later versions refuse them as invalid requests).
    const res = await workerFetch(`${ORIGIN}/mcp/tasks`, {
      ...legacyPost(reader.token, "2025-03-26", {}),
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_tasks", arguments: {} } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: ADD_TASK },
      ]),
    });
    expectStepUp(res, "tasks:read tasks:write", "/mcp/tasks");
    expect(await taskCount(reader)).toBe(0);
  });
});

describe("tools/list", () => {
  it("lists every tool, also those the token cannot call, with the scopes each needs", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    for (const init of [legacyPost(reader.token, "2025-11-25", { id: 1, method: "tools/list" }), modernPost(reader.token, "tools/list")]) {
      const res = await workerFetch(`${ORIGIN}/mcp/tasks`, init);
      const tools = (await rpcResponse(res)).result!["tools"] as { name: string; _meta?: Record<string, unknown> }[];
      expect(tools.map((tool) => tool.name).sort()).toEqual(taskTools.map((tool) => tool.name).sort());
      const scopes = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.["mcp-edge/scopes"]]));
      expect(scopes["add_task"]).toEqual(["tasks:write"]);
      expect(scopes["list_tasks"]).toEqual(["tasks:read"]);
    }
  });

  it("on the gateway, source tools are marked gateway:read and built-ins keep their own scopes", async () => {
    const owner = await createUser();
    const source = await registerTasksSource(owner, owner);
    const res = await workerFetch(`${ORIGIN}/mcp`, modernPost(owner.token, "tools/list"));
    const tools = (await rpcResponse(res)).result!["tools"] as { name: string; _meta?: Record<string, unknown> }[];
    const scopes = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.["mcp-edge/scopes"]]));
    expect(scopes[`${source.body.source.slug}__add_task`]).toEqual(["gateway:read"]);
    expect(scopes["add_task"]).toEqual(["tasks:write"]);
    expect(scopes["gateway_add_source"]).toEqual(["gateway:admin"]);
    expect(scopes["gateway_list_sources"]).toEqual(["gateway:read"]);
  });
});

describe("declaring scopes", () => {
  const tool = {
    name: "unscoped",
    title: "Unscoped",
    description: "A tool that forgot its scopes.",
    input: z.object({}),
    output: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scopes: [],
    run: async () => ({ data: {}, text: "" }),
  };

  it("a tool without scopes cannot be defined", () => {
    expect(() => defineTool(tool)).toThrow(/declares no scopes/);
  });

  it("building a server with a tool without scopes fails", async () => {
    const user = await createUser();
    const services = createServices(env, () => undefined);
    const definition = { name: "broken", version: "0", instructions: "", tools: [tool as ToolDefinition] };
    expect(() => buildServer(definition, { user, services, access: fullAccess(user) })).toThrow(/unscoped declares no scopes/);
  });

  it("invokeTool refuses a call the principal lacks scopes for, even if the gate were bypassed", async () => {
    const user = await createUser();
    const services = createServices(env, () => undefined);
    const addTask = taskTools.find((candidate) => candidate.name === "add_task")!;
    const access = { ...fullAccess(user), principal: { ...fullAccess(user).principal, scopes: new Set(["tasks:read" as const]) } };
    const result = await invokeTool(addTask, { title: "no" }, { user, services, access }, { signal: new AbortController().signal });
    expect(result).toMatchObject({ isError: true });
    expect(await taskCount({ ...user, token: "", headers: {} })).toBe(0);
  });
});

describe("REST routes follow the same rule", () => {
  it("a tasks:read token lists tasks but gets 403 naming tasks:write on POST /api/tasks", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    expect((await api(reader, "GET", "/api/tasks")).status).toBe(200);
    const res = await workerFetch(`${ORIGIN}/api/tasks`, {
      method: "POST",
      headers: { ...reader.headers, "content-type": "application/json" },
      body: JSON.stringify({ title: "no" }),
    });
    expectStepUp(res, "tasks:write", "/api");
    expect(await res.json()).toMatchObject({ error: { code: "forbidden", details: { required_scopes: ["tasks:write"] } } });
    expect(await taskCount(reader)).toBe(0);
  });

  it("the scope check comes before input validation", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    const res = await workerFetch(`${ORIGIN}/api/tasks`, {
      method: "POST",
      headers: { ...reader.headers, "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(403);
  });

  it("/api/chat needs chat; sources need gateway scopes", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    expectStepUp(await workerFetch(`${ORIGIN}/api/chat`, { headers: reader.headers }), "chat", "/api");
    expectStepUp(await workerFetch(`${ORIGIN}/api/sources`, { headers: reader.headers }), "gateway:read", "/api");
  });
});

describe("step-up with the MCP client", () => {
  it("a tasks:read OAuth token (tasks:write unticked) calling add_task gets one 403 naming tasks:write; after re-authorizing with the union the call succeeds", async () => {
    const user = await createUser();
    const provider = new TestOAuthProvider({ name: "Step-up client" });
    const browser = new Browser();
    // The person unticked tasks:write on the consent page of the first sign-in.
    const client = await connectWithOAuth("/mcp/tasks", user, provider, "2026-07-28", browser, { scopes: ["tasks:read"] });
    expect(provider.tokens()?.scope).toBe("tasks:read");

    // The raw answer first: exactly one 403 with the challenge.
    const raw = await workerFetch(
      `${ORIGIN}/mcp/tasks`,
      modernPost(provider.tokens()!.access_token, "tools/call", { name: "add_task", arguments: { title: "raw" } }),
    );
    expectStepUp(raw, "tasks:write", "/mcp/tasks");

    // The SDK reacts to the 403 by sending the user to authorize the union of scopes.
    provider.authorizationUrl = undefined;
    await expect(client.callTool({ name: "add_task", arguments: { title: "stepped up" } })).rejects.toBeInstanceOf(UnauthorizedError);
    const asked = new URL(provider.authorizationUrl!.href).searchParams.get("scope")!.split(" ").sort();
    expect(asked).toEqual(["tasks:read", "tasks:write"]);
    const { callback, consentShown } = await authorizeInBrowser(browser, provider.authorizationUrl!.href, user);
    expect(consentShown, "more scopes than approved before: the consent page is shown again").toBe(true);
    await oauthTransport("/mcp/tasks", provider).finishAuth(callback.searchParams);
    expect(provider.tokens()?.scope?.split(" ").sort()).toEqual(["tasks:read", "tasks:write"]);

    const again = mcpClient("2026-07-28");
    await again.connect(oauthTransport("/mcp/tasks", provider));
    const created = await callOk<{ task: { title: string } }>(again, "add_task", { title: "stepped up" });
    expect(created.task.title).toBe("stepped up");
    expect(await taskCount(user)).toBe(1);
    await again.close();
    await client.close();
  });
});
