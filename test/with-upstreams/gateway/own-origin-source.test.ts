/**
 * A gateway source is never on this Worker's own origin (decision 0057): the built-in servers are
 * already on /mcp. Any URL there — /mcp/tasks as much as the gateway /mcp — is refused on create, on
 * change, in the provider's shape and through both admin tools, naming the field. The Worker's own
 * origin is SELF_ORIGIN (http://localhost here) and the origin the registering request arrived on:
 * without SELF_ORIGIN (wrangler dev's default; here an app given the tests' bindings but that one)
 * and on another hostname than SELF_ORIGIN. Another deployment's URL (the upstream Worker, another
 * port, another scheme) stays allowed. A row stored before the rule (written here straight into D1,
 * as an old row would be) is never fetched: its calls and its discovery answer a typed `url_refused`
 * with a readable last_discovery_error, and nothing runs.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../workers/app";
import { isOwnOriginUrl } from "../../../workers/gateway/sources/own-gateway-url";
import { countRows } from "../../helpers/db";
import {
  callThroughGateway,
  connectGateway,
  registerTasksSource,
  type SourceDetailBody,
  storeOwnOriginSource,
  TASKS_URL,
} from "../../helpers/gateway";
import { connectTo, textOf } from "../../helpers/mcp";
import { api, errorOf } from "../../helpers/rest";
import { createUser, type TestUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

const OWN = "http://localhost";
const WHY = "is this Worker's own origin: a gateway source cannot be one of its own servers";
const REFUSAL = new RegExp(`${WHY} \\(the built-in servers are already on /mcp`);
const STORED_REFUSAL = /^url_refused: url http:\/\/localhost is this Worker's own origin/;

/** URLs on the Worker's own origin, as a user might spell them: its servers, the gateway, anything else there. */
const OWN_ORIGIN_URLS = [
  "http://localhost/mcp/tasks",
  "http://localhost/mcp/rag",
  "http://localhost/mcp/thinking",
  "http://localhost/mcp",
  "http://localhost/",
  "http://localhost/api/sources?x=1#top",
  "http://LocalHost/mcp/tasks",
  "http://localhost:80/mcp/tasks",
  "http://localhost./mcp/tasks",
  "http://127.0.0.1/mcp/tasks",
  "http://[::1]/mcp/tasks",
  "http://tasks.localhost/mcp/tasks",
];

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The Worker with the tests' bindings but `overrides`, in-process, with the Host a real client sends. */
function workerWith(overrides: Partial<Env>): Fetch {
  const app = createApp();
  return async (input, init) => {
    const request = new Request(input, init);
    request.headers.set("host", new URL(request.url).host);
    return app.fetch(request, { ...env, ...overrides }, createExecutionContext());
  };
}

/** A REST call through `fetch` at `origin`, its JSON body parsed. */
async function apiOn(
  fetch: Fetch,
  origin: string,
  owner: TestUser,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const headers = { ...owner.headers, "content-type": "application/json" };
  const res = await fetch(`${origin}${path}`, { method, headers, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

function expectRefused(res: { status: number; body: unknown }, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  const error = errorOf(res);
  expect(error.code).toBe("invalid_input");
  expect(error.message).toMatch(new RegExp(`^${field} `));
  expect(error.message).toMatch(REFUSAL);
  expect(error.message).toMatch(/Register another deployment's URL instead$/);
  expect(error.details).toMatchObject({ field });
}

/** An admin tool's call on /mcp through `fetch` (default: the Worker under test). */
async function adminTool(owner: TestUser, name: string, args: Record<string, unknown>, fetch?: Fetch): Promise<string> {
  const client = fetch ? await connectTo("/mcp", owner.token, { fetch }) : await connectGateway(owner);
  try {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, textOf(result)).toBe(true);
    return textOf(result);
  } finally {
    await client.close();
  }
}

const TOOL_REFUSAL = new RegExp(`^invalid_input: url http://localhost ${WHY}`);

describe("registering a source on this Worker's own origin (SELF_ORIGIN)", () => {
  it.each(OWN_ORIGIN_URLS)("is refused for %s, naming url; nothing is stored", async (url) => {
    const owner = await createUser();
    expectRefused(await registerTasksSource(owner, owner, { url }), "url");
    expect((await api<{ count: number }>(owner, "GET", "/api/sources")).body.count).toBe(0);
  });

  it("is refused in the provider's remote shape (url and mcp_server_url, env vars as an object), naming mcp_server_url", async () => {
    const owner = await createUser();
    const res = await api(owner, "POST", "/api/sources", {
      body: {
        name: "Own",
        source_type: "mcp",
        url: TASKS_URL,
        mcp_server_url: "http://localhost/mcp/tasks",
        mcp_env_vars: { Authorization: `Bearer ${owner.token}` },
      },
    });
    expectRefused(res, "mcp_server_url");
  });

  it("is refused when a source's url or mcp_server_url is changed to it, and the source stays as it was", async () => {
    const owner = await createUser();
    const { body } = await registerTasksSource(owner, owner);
    const id = body.source.id;
    expectRefused(await api(owner, "PATCH", `/api/sources/${id}`, { body: { url: "http://localhost/mcp/tasks" } }), "url");
    const toThinking = await api(owner, "PATCH", `/api/sources/${id}`, { body: { mcp_server_url: "http://LOCALHOST:80/mcp/thinking" } });
    expectRefused(toThinking, "mcp_server_url");
    const after = await api<SourceDetailBody>(owner, "GET", `/api/sources/${id}`);
    expect(after.body.source.url).toBe(TASKS_URL);
  });

  it("is refused through gateway_add_source and gateway_update_source", async () => {
    const owner = await createUser();
    expect(await adminTool(owner, "gateway_add_source", { name: "Own", url: "http://localhost/mcp/tasks" })).toMatch(TOOL_REFUSAL);
    const { body } = await registerTasksSource(owner, owner);
    const updated = await adminTool(owner, "gateway_update_source", { source_id: body.source.id, url: "http://localhost/mcp/tasks" });
    expect(updated).toMatch(TOOL_REFUSAL);
    expect((await api<SourceDetailBody>(owner, "GET", `/api/sources/${body.source.id}`)).body.source.url).toBe(TASKS_URL);
  });

  it("leaves another deployment's URL allowed: the upstream Worker, another port, another scheme", async () => {
    const elsewhere = [
      TASKS_URL,
      `${UPSTREAM_ORIGIN}/mcp`,
      "http://localhost:8787/mcp/tasks",
      "https://localhost/mcp/tasks",
      "http://edge.example/mcp",
    ];
    for (const url of elsewhere) {
      expect(isOwnOriginUrl(new URL(url), [OWN, undefined]), url).toBe(false);
    }
    // No own origin known (no SELF_ORIGIN, no request): nothing is the Worker's own by URL.
    expect(isOwnOriginUrl(new URL("http://localhost/mcp/tasks"), ["", undefined])).toBe(false);
    for (const url of OWN_ORIGIN_URLS) {
      expect(isOwnOriginUrl(new URL(url), ["http://localhost/"]), url).toBe(true);
      // The request's origin alone, or beside another SELF_ORIGIN, is as much the Worker's own.
      expect(isOwnOriginUrl(new URL(url), [undefined, OWN]), url).toBe(true);
      expect(isOwnOriginUrl(new URL(url), ["https://edge.example", OWN]), url).toBe(true);
    }
    const owner = await createUser();
    const { status, body } = await registerTasksSource(owner, owner);
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body.source.last_discovery_error).toBeNull();
  });
});

describe("registering a source on the origin the request arrived on", () => {
  // wrangler dev's default: SELF_ORIGIN unset, so only the request's origin (http://localhost, as the tests send) names the Worker.
  const withoutSelfOrigin = workerWith({ SELF_ORIGIN: "" });

  it("without SELF_ORIGIN: a URL on it is refused on create and in the provider's shape, naming the field; nothing is stored", async () => {
    const owner = await createUser();
    for (const url of OWN_ORIGIN_URLS) {
      expectRefused(await apiOn(withoutSelfOrigin, OWN, owner, "POST", "/api/sources", { name: "Own", url }), "url");
    }
    expectRefused(
      await apiOn(withoutSelfOrigin, OWN, owner, "POST", "/api/sources", {
        name: "Own",
        source_type: "mcp",
        url: TASKS_URL,
        mcp_server_url: "http://localhost/mcp/tasks",
      }),
      "mcp_server_url",
    );
    expect((await api<{ count: number }>(owner, "GET", "/api/sources")).body.count).toBe(0);
  });

  it("without SELF_ORIGIN: a change to it is refused over REST and through both admin tools", async () => {
    const owner = await createUser();
    const { body } = await registerTasksSource(owner, owner);
    const id = body.source.id;
    expectRefused(await apiOn(withoutSelfOrigin, OWN, owner, "PATCH", `/api/sources/${id}`, { url: "http://localhost/mcp/tasks" }), "url");
    const toRag = await apiOn(withoutSelfOrigin, OWN, owner, "PATCH", `/api/sources/${id}`, { mcp_server_url: "http://localhost/mcp/rag" });
    expectRefused(toRag, "mcp_server_url");
    const own = "http://localhost/mcp/tasks";
    expect(await adminTool(owner, "gateway_add_source", { name: "Own", url: own }, withoutSelfOrigin)).toMatch(TOOL_REFUSAL);
    expect(await adminTool(owner, "gateway_update_source", { source_id: id, url: own }, withoutSelfOrigin)).toMatch(TOOL_REFUSAL);
    expect((await api<SourceDetailBody>(owner, "GET", `/api/sources/${id}`)).body.source.url).toBe(TASKS_URL);
  });

  it("without SELF_ORIGIN: another deployment's URL stays allowed", async () => {
    const owner = await createUser();
    const res = await apiOn(withoutSelfOrigin, OWN, owner, "POST", "/api/sources", {
      name: "Upstream tasks",
      url: TASKS_URL,
      mcp_env_vars: [{ name: "Authorization", value: `Bearer ${owner.token}`, secret: true }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("on another hostname than SELF_ORIGIN: a URL on that hostname is refused too", async () => {
    const owner = await createUser();
    const other = "http://mcp-edge.example:8787";
    const res = await apiOn(workerWith({}), other, owner, "POST", "/api/sources", { name: "Own", url: `${other}/mcp/tasks` });
    expectRefused(res, "url");
    expect(errorOf(res).message).toMatch(/^url http:\/\/mcp-edge\.example:8787 is this Worker's own origin/);
  });
});

describe.each(["stateless", "sessionful"] as const)("a %s source stored on the Worker's own origin before the rule", (kind) => {
  const stored = ["http://localhost/mcp/tasks", "http://localhost/mcp"];
  it.each(stored)("is never fetched for %s: a call answers url_refused, nothing runs", async (url) => {
    const owner = await createUser();
    const { slug } = await storeOwnOriginSource(owner, url, kind);
    const result = await callThroughGateway(owner, `${slug}__add_task`, { title: "through its own origin" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(STORED_REFUSAL);
    expect(await countRows("tasks", owner.id)).toBe(0);
  });

  it("fails discovery cleanly with a readable last_discovery_error", async () => {
    const owner = await createUser();
    const { id } = await storeOwnOriginSource(owner, "http://localhost/mcp/tasks", kind);
    const res = await api<SourceDetailBody>(owner, "POST", `/api/sources/${id}/refresh`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source.last_discovery_error).toMatch(STORED_REFUSAL);
  });
});
