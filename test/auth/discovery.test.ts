/**
 * Discovery, field by field: the protected resource metadata of every resource, the authorization
 * server metadata, and the 401 challenge of every protected path pointing at them.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../workers/app";
import { workerFetch } from "../helpers/mcp";

const ORIGIN = "http://localhost";

/** The Worker as `wrangler dev` runs it: no SELF_ORIGIN, so the request's origin is the issuer. */
async function withoutSelfOrigin(url: string): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await createApp().fetch(new Request(url, { headers: { host: new URL(url).host } }), { ...env, SELF_ORIGIN: "" }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** Every scope of each MCP server's tools: what a first sign-in is told to ask for (decision 0054). */
const GATEWAY_SCOPES = ["tasks:read", "tasks:write", "rag:read", "rag:write", "thinking", "gateway:read", "gateway:admin"];
const RESOURCES = [
  { path: "/mcp/tasks", scopes: ["tasks:read", "tasks:write"] },
  { path: "/mcp/rag", scopes: ["rag:read", "rag:write"] },
  { path: "/mcp/thinking", scopes: ["thinking"] },
  { path: "/mcp", scopes: GATEWAY_SCOPES },
  { path: "/api", scopes: undefined },
  { path: "", scopes: undefined },
] as const;

describe("protected resource metadata (RFC 9728)", () => {
  it.each(RESOURCES)("is published for $path with every scope its tools use", async ({ path, scopes }) => {
    const res = await workerFetch(`${ORIGIN}/.well-known/oauth-protected-resource${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const doc = await res.json<Record<string, unknown>>();
    expect(doc["resource"]).toBe(`${ORIGIN}${path}`);
    expect(doc["authorization_servers"]).toEqual([ORIGIN]);
    expect(doc["bearer_methods_supported"]).toEqual(["header"]);
    expect(typeof doc["resource_name"]).toBe("string");
    if (scopes) expect(doc["scopes_supported"]).toEqual(scopes);
    else expect(doc).not.toHaveProperty("scopes_supported");
  });

  it("answers 404 for a path that is no resource", async () => {
    const res = await workerFetch(`${ORIGIN}/.well-known/oauth-protected-resource/mcp/unknown`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "invalid_request" });
  });
});

describe("authorization server metadata (RFC 8414)", () => {
  it("names the origin as issuer, S256 only, CIMD, DCR, revocation and iss responses", async () => {
    const res = await workerFetch(`${ORIGIN}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const doc = await res.json<Record<string, unknown>>();
    expect(doc["issuer"]).toBe(ORIGIN);
    expect(doc["authorization_endpoint"]).toBe(`${ORIGIN}/authorize`);
    expect(doc["token_endpoint"]).toBe(`${ORIGIN}/oauth/token`);
    expect(doc["registration_endpoint"]).toBe(`${ORIGIN}/oauth/register`);
    expect(doc["revocation_endpoint"]).toBe(`${ORIGIN}/oauth/token`);
    expect(doc["code_challenge_methods_supported"]).toEqual(["S256"]);
    expect(doc["client_id_metadata_document_supported"]).toBe(true);
    expect(doc["authorization_response_iss_parameter_supported"]).toBe(true);
    expect(doc["response_types_supported"]).toEqual(["code"]);
    expect(doc["grant_types_supported"]).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(doc["scopes_supported"]).toEqual([
      "tasks:read",
      "tasks:write",
      "rag:read",
      "rag:write",
      "thinking",
      "gateway:read",
      "gateway:admin",
      "chat",
    ]);
    expect(doc["protected_resources"]).toEqual(RESOURCES.map(({ path }) => `${ORIGIN}${path}`));
  });

  it("without SELF_ORIGIN, the issuer is the request's own origin (wrangler dev)", async () => {
    const res = await withoutSelfOrigin("http://127.0.0.1:8787/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect((await res.json<{ issuer: string }>()).issuer).toBe("http://127.0.0.1:8787");
  });

  it("is refused with a clear 400 on an origin OAuth cannot use (plain http on a foreign host)", async () => {
    // What a DNS-rebinding page sends to a local wrangler dev: Host evil.example.
    const res = await withoutSelfOrigin("http://evil.example:8787/.well-known/oauth-authorization-server");
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; error_description: string }>();
    expect(body.error).toBe("invalid_request");
    expect(body.error_description).toMatch(/OAuth is not available at this origin/);
  });
});

const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "challenge-test", version: "1" } },
});

function protectedRequest(path: string, authorization?: string): Promise<Response> {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  if (path.startsWith("/mcp")) {
    return workerFetch(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: MCP_INITIALIZE,
    });
  }
  return workerFetch(`${ORIGIN}${path}`, { headers });
}

describe("401 challenges", () => {
  const CASES = [
    { route: "/mcp/tasks", metadata: "/mcp/tasks", scope: "tasks:read tasks:write" },
    { route: "/mcp/rag", metadata: "/mcp/rag", scope: "rag:read rag:write" },
    { route: "/mcp/thinking", metadata: "/mcp/thinking", scope: "thinking" },
    { route: "/mcp", metadata: "/mcp", scope: GATEWAY_SCOPES.join(" ") },
    { route: "/api/tasks", metadata: "/api", scope: undefined },
    { route: "/api/servers", metadata: "/api", scope: undefined },
  ];

  it.each(CASES)("$route without a token names its metadata and what a first sign-in asks for", async ({ route, metadata, scope }) => {
    const res = await protectedRequest(route);
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge.startsWith("Bearer ")).toBe(true);
    expect(challenge).toContain('realm="OAuth"');
    expect(challenge).not.toContain("error=");
    expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource${metadata}"`);
    if (scope) expect(challenge).toContain(`scope="${scope}"`);
    else expect(challenge).not.toContain("scope=");
    expect(res.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
  });

  it.each(CASES)("$route with an invalid token adds error=invalid_token", async ({ route, metadata }) => {
    const res = await protectedRequest(route, "Bearer 1:nogrant:notasecret");
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource${metadata}"`);
  });
});

/** The Worker with the operator's OAUTH_DEFAULT_SCOPES (wrangler.toml [vars]). */
async function withDefaultScopes(setting: string, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await createApp().fetch(new Request(`${ORIGIN}${path}`, init), { ...env, OAUTH_DEFAULT_SCOPES: setting }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const INITIALIZE_POST: RequestInit = {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: MCP_INITIALIZE,
};

describe("OAUTH_DEFAULT_SCOPES: the operator narrows what a first sign-in asks for", () => {
  const NARROWED = JSON.stringify({ "/mcp/tasks": "tasks:read", "/mcp": "gateway:read tasks:read" });

  it("replaces the 401 scope and scopes_supported of the endpoints it names, and only those", async () => {
    const tasks = await withDefaultScopes(NARROWED, "/mcp/tasks", INITIALIZE_POST);
    expect(tasks.status).toBe(401);
    expect(tasks.headers.get("www-authenticate")).toContain('scope="tasks:read"');
    const tasksDoc = await (
      await withDefaultScopes(NARROWED, "/.well-known/oauth-protected-resource/mcp/tasks")
    ).json<Record<string, unknown>>();
    expect(tasksDoc["scopes_supported"]).toEqual(["tasks:read"]);
    const gateway = await withDefaultScopes(NARROWED, "/mcp", INITIALIZE_POST);
    expect(gateway.headers.get("www-authenticate")).toContain('scope="tasks:read gateway:read"');
    const rag = await withDefaultScopes(NARROWED, "/mcp/rag", INITIALIZE_POST);
    expect(rag.headers.get("www-authenticate")).toContain('scope="rag:read rag:write"');
  });

  it.each([
    ["not JSON", "tasks:read", /expected "" or a JSON object/],
    ["an array", '["tasks:read"]', /expected a JSON object from endpoint path/],
    ["an endpoint that is not an MCP server", '{"/api": "tasks:read"}', /"\/api" is not an MCP endpoint/],
    ["an empty list", '{"/mcp/tasks": " "}', /"\/mcp\/tasks" names no scope/],
    ["an unknown scope", '{"/mcp/tasks": "tasks:delete"}', /unknown scope tasks:delete/],
    ["a scope the endpoint does not serve", '{"/mcp/tasks": "rag:read"}', /names rag:read, which its tools do not use/],
    [
      "a gateway list that would bind clients to /mcp/tasks",
      '{"/mcp": "tasks:read"}',
      /would bind a client that sends no resource to \/mcp\/tasks/,
    ],
  ])("an unusable value (%s) answers 503 naming the setting, on the 401 and the metadata", async (_case, setting, reason) => {
    for (const res of [
      await withDefaultScopes(setting, "/mcp/tasks", INITIALIZE_POST),
      await withDefaultScopes(setting, "/.well-known/oauth-protected-resource/mcp/tasks"),
    ]) {
      expect(res.status).toBe(503);
      const body = await res.json<{ error: { code: string; message: string } }>();
      expect(body.error.code).toBe("unavailable");
      expect(body.error.message).toMatch(/^The setting OAUTH_DEFAULT_SCOPES is not valid: /);
      expect(body.error.message).toMatch(reason);
    }
  });
});
