/**
 * A gateway source cannot be this gateway. Registering the Worker's own /mcp (SELF_ORIGIN is
 * http://localhost here) is refused in every spelling, on create, on change and in the provider's
 * shape, naming the field; /mcp/<server> on the same origin stays allowed. A row stored before the
 * rule (written here straight into D1, as an old row would be) can neither be called nor discovered:
 * the SelfCalls entry point refuses the hop, and the gateway answers a typed error after that one
 * hop — no task is made however deep the loop's name.
 */
import { describe, expect, it } from "vitest";
import { isOwnGatewayUrl } from "../../workers/gateway/own-gateway-url";
import { GATEWAY_SOURCE_IS_THIS_GATEWAY } from "../../workers/http/self-call";
import { countRows } from "../helpers/db";
import { callThroughGateway, connectGateway, registerTasksSource, type SourceDetailBody, storeOwnGatewaySource, TASKS_URL } from "../helpers/gateway";
import { textOf } from "../helpers/mcp";
import { api, errorOf } from "../helpers/rest";
import { createUser } from "../helpers/users";

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
      expect(isOwnGatewayUrl(new URL(url, OWN), OWN), url).toBe(false);
    }
    for (const url of ["http://localhost:8787/mcp", "https://localhost/mcp", "http://127.0.0.1/mcp", "http://edge.example/mcp"]) {
      expect(isOwnGatewayUrl(new URL(url), OWN), url).toBe(false);
    }
    // Without SELF_ORIGIN nothing is reached through SELF, so nothing is this gateway by URL.
    expect(isOwnGatewayUrl(new URL("http://localhost/mcp"), "")).toBe(false);
    for (const url of GATEWAY_SPELLINGS) expect(isOwnGatewayUrl(new URL(url), "http://localhost/"), url).toBe(true);
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
