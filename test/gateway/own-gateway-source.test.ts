/**
 * A gateway source cannot be this gateway. Registering the Worker's own /mcp (SELF_ORIGIN is
 * http://localhost here) is refused in every spelling, on create, on change and in the provider's
 * shape, naming the field; /mcp/<server> on the same origin stays allowed. The origin the request
 * arrived on counts as the Worker's own too: without SELF_ORIGIN (wrangler dev's default, here an
 * app given the tests' bindings but that one) and on another hostname than SELF_ORIGIN. A row stored before the
 * rule (written here straight into D1, as an old row would be) can neither be called nor discovered:
 * the SelfCalls entry point refuses the hop, and the gateway answers a typed error after that one
 * hop — no task is made however deep the loop's name.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../workers/app";
import { isOwnGatewayUrl } from "../../workers/gateway/registry/own-gateway-url";
import { GATEWAY_SOURCE_IS_THIS_GATEWAY } from "../../workers/http/self-call";
import { countRows } from "../helpers/db";
import { callThroughGateway, connectGateway, registerTasksSource, type SourceDetailBody, storeOwnGatewaySource, TASKS_URL } from "../helpers/gateway";
import { connectTo, textOf } from "../helpers/mcp";
import { api, errorOf } from "../helpers/rest";
import { createUser, type TestUser } from "../helpers/users";

const OWN = "http://localhost";
const REFUSAL = /is this gateway's own endpoint: a gateway source cannot be the gateway itself/;
const HOP_REFUSED = /a gateway source cannot be this gateway/;

/** The Worker's own gateway endpoint, as a user might spell it. */
const GATEWAY_SPELLINGS = [
  "http://localhost/mcp",
  "http://localhost/mcp/",
  "http://LocalHost/mcp",
  "http://localhost:80/mcp",
  "http://localhost./mcp",
  "http://localhost/MCP",
  "http://localhost/%6dcp",
  "http://localhost/mcp%2F",
  "http://localhost//mcp",
  "http://localhost/mcp//",
  "http://localhost/tasks/../mcp",
  "http://localhost/%2e%2e/mcp",
  "http://localhost/mcp?via=gateway#top",
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
async function apiOn(fetch: Fetch, origin: string, owner: TestUser, method: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${origin}${path}`, { method, headers: { ...owner.headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

function expectRefused(res: { status: number; body: unknown }, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  const error = errorOf(res);
  expect(error.code).toBe("invalid_input");
  expect(error.message).toMatch(new RegExp(`^${field} `));
  expect(error.message).toMatch(REFUSAL);
  expect(error.details).toMatchObject({ field });
}

describe("registering this gateway as a source", () => {
  it.each(GATEWAY_SPELLINGS)("is refused for %s, naming url", async (url) => {
    const owner = await createUser();
    expectRefused(await registerTasksSource(owner, owner, { url }), "url");
    expect((await api<{ count: number }>(owner, "GET", "/api/sources")).body.count).toBe(0);
  });

  it("is refused in the provider's remote shape (url and mcp_server_url, env vars as an object), naming mcp_server_url", async () => {
    const owner = await createUser();
    const res = await api(owner, "POST", "/api/sources", {
      body: { name: "Loop", source_type: "mcp", url: TASKS_URL, mcp_server_url: "http://localhost/mcp/", mcp_env_vars: { Authorization: `Bearer ${owner.token}` } },
    });
    expectRefused(res, "mcp_server_url");
  });

  it("is refused when a source's url or mcp_server_url is changed to it, and the source stays as it was", async () => {
    const owner = await createUser();
    const { body } = await registerTasksSource(owner, owner);
    const id = body.source.id;
    expectRefused(await api(owner, "PATCH", `/api/sources/${id}`, { body: { url: "http://localhost/mcp" } }), "url");
    expectRefused(await api(owner, "PATCH", `/api/sources/${id}`, { body: { mcp_server_url: "http://LOCALHOST:80/mcp/" } }), "mcp_server_url");
    const after = await api<SourceDetailBody>(owner, "GET", `/api/sources/${id}`);
    expect(after.body.source.url).toBe(TASKS_URL);
  });

  it("is refused through the admin tools too", async () => {
    const owner = await createUser();
    const client = await connectGateway(owner);
    const added = await client.callTool({ name: "gateway_add_source", arguments: { name: "Loop", url: "http://localhost/mcp" } });
    expect(added.isError).toBe(true);
    expect(textOf(added)).toMatch(/^invalid_input: url http:\/\/localhost\/mcp is this gateway's own endpoint/);
  });

  it("leaves the Worker's own servers and every other origin allowed", () => {
    for (const url of ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp/tasks/", "/mcp%2Ftasks", "/mcpx", "/api/mcp", "/"]) {
      expect(isOwnGatewayUrl(new URL(url, OWN), [OWN, OWN]), url).toBe(false);
    }
    for (const url of ["http://localhost:8787/mcp", "https://localhost/mcp", "http://127.0.0.1/mcp", "http://edge.example/mcp"]) {
      expect(isOwnGatewayUrl(new URL(url), [OWN, undefined]), url).toBe(false);
    }
    // No own origin known (no SELF_ORIGIN, no request): nothing is this gateway by URL.
    expect(isOwnGatewayUrl(new URL("http://localhost/mcp"), ["", undefined])).toBe(false);
    for (const url of GATEWAY_SPELLINGS) {
      expect(isOwnGatewayUrl(new URL(url), ["http://localhost/"]), url).toBe(true);
      // The request's origin alone, or beside another SELF_ORIGIN, is as much the Worker's own.
      expect(isOwnGatewayUrl(new URL(url), [undefined, OWN]), url).toBe(true);
      expect(isOwnGatewayUrl(new URL(url), ["https://edge.example", OWN]), url).toBe(true);
    }
  });
});

describe("registering this gateway as a source, on the origin the request arrived on", () => {
  // wrangler dev's default: SELF_ORIGIN unset, so only the request's origin (http://localhost, as the tests send) names the Worker.
  const withoutSelfOrigin = workerWith({ SELF_ORIGIN: "" });

  it("without SELF_ORIGIN: <request origin>/mcp is refused in every spelling, naming the field; nothing is stored", async () => {
    const owner = await createUser();
    for (const url of GATEWAY_SPELLINGS) {
      expectRefused(await apiOn(withoutSelfOrigin, OWN, owner, "POST", "/api/sources", { name: "Loop", url }), "url");
    }
    expectRefused(
      await apiOn(withoutSelfOrigin, OWN, owner, "POST", "/api/sources", { name: "Loop", source_type: "mcp", url: TASKS_URL, mcp_server_url: "http://localhost/mcp/" }),
      "mcp_server_url",
    );
    expect((await api<{ count: number }>(owner, "GET", "/api/sources")).body.count).toBe(0);
  });

  it("without SELF_ORIGIN: a change to it is refused, and so is the admin tool's registration", async () => {
    const owner = await createUser();
    const { body } = await registerTasksSource(owner, owner);
    expectRefused(await apiOn(withoutSelfOrigin, OWN, owner, "PATCH", `/api/sources/${body.source.id}`, { url: "http://localhost/mcp" }), "url");
    expect((await api<SourceDetailBody>(owner, "GET", `/api/sources/${body.source.id}`)).body.source.url).toBe(TASKS_URL);

    const client = await connectTo("/mcp", owner.token, { fetch: withoutSelfOrigin });
    const added = await client.callTool({ name: "gateway_add_source", arguments: { name: "Loop", url: "http://localhost/mcp" } });
    await client.close();
    expect(added.isError).toBe(true);
    expect(textOf(added)).toMatch(/^invalid_input: url http:\/\/localhost\/mcp is this gateway's own endpoint/);
  });

  it("without SELF_ORIGIN: <request origin>/mcp/tasks stays allowed", async () => {
    const owner = await createUser();
    const res = await apiOn(withoutSelfOrigin, OWN, owner, "POST", "/api/sources", {
      name: "Own tasks",
      url: `${OWN}/mcp/tasks`,
      mcp_env_vars: [{ name: "Authorization", value: `Bearer ${owner.token}`, secret: true }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("on another hostname than SELF_ORIGIN: that hostname's /mcp is refused too", async () => {
    const owner = await createUser();
    const other = "http://127.0.0.1:8787";
    expectRefused(await apiOn(workerWith({}), other, owner, "POST", "/api/sources", { name: "Loop", url: `${other}/mcp` }), "url");
  });
});

describe.each(["stateless", "sessionful"] as const)("a %s source stored before the rule that is this gateway", (kind) => {
  it("answers a typed error after one hop, for the built-in tool and for the loop's own tool; nothing runs", { timeout: 60_000 }, async () => {
    const owner = await createUser();
    await storeOwnGatewaySource(owner, kind);
    for (const name of ["loop__add_task", "loop__loop__add_task"]) {
      const result = await callThroughGateway(owner, name, { title: `through ${name}` });
      expect(result.isError, name).toBe(true);
      const text = textOf(result);
      expect(text, name).toMatch(/^protocol: /);
      expect(text, name).toContain(String(GATEWAY_SOURCE_IS_THIS_GATEWAY));
      expect(text, name).toMatch(HOP_REFUSED);
    }
    expect(await countRows("tasks", owner.id)).toBe(0);
  });

  it("fails discovery cleanly with a readable last_discovery_error", { timeout: 60_000 }, async () => {
    const owner = await createUser();
    const id = await storeOwnGatewaySource(owner, kind);
    const res = await api<SourceDetailBody>(owner, "POST", `/api/sources/${id}/refresh`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source.last_discovery_error).toMatch(/^protocol: /);
    expect(res.body.source.last_discovery_error).toMatch(HOP_REFUSED);
  });
});
