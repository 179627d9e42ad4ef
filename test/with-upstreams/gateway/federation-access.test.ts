/**
 * Who may reach a source's resources and prompts on /mcp (decision 0068, docs/security.md), and
 * the answers to bad input — clear JSON-RPC errors, never a 500: another user's source, a hidden,
 * disabled or deleted one are "not found" exactly like an unknown name; a source's resource or
 * prompt needs `gateway:read`, a built-in's keeps its server's scope; an upstream's item /mcp cannot
 * name is left out of the list; every forwarded request is audited with its method.
 */
import type { Client } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseQueueEvent } from "../../../workers/queue-events";
import { connectGateway } from "../../helpers/gateway";
import { eventually } from "../../helpers/eventually";
import { workerFetch } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { rpcRequest, rpcResponse } from "../../helpers/rpc";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser, type TestUser, withScopedToken } from "../../helpers/users";

const RESOURCE = "demo://fed__ok/1";
const PROMPT = "fed__hello";

/** The owner of a source `fed` serving /federated/mcp (stateless), and its id. */
async function federatedSource(): Promise<{ owner: TestUser; id: number }> {
  const owner = await createUser();
  const { status, body } = await registerSource(owner, fixtureUrl("federated"), { name: "Fed" });
  expect(status, JSON.stringify(body)).toBe(201);
  return { owner, id: body.source.id };
}

/** What /mcp serves `client` of the source: its resource read, its prompt got, and whether its lists hold them. */
async function reach(client: Client): Promise<{ read: string; got: string; listed: boolean }> {
  const read = await client.readResource({ uri: RESOURCE }).then(
    (result) => `ok ${result.contents[0]?.uri}`,
    (error: unknown) => String(error),
  );
  const got = await client.getPrompt({ name: PROMPT, arguments: { who: "me" } }).then(
    (result) => `ok ${result.messages.length}`,
    (error: unknown) => String(error),
  );
  const resources = (await client.listResources()).resources.map((resource) => resource.uri);
  const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
  return { read, got, listed: resources.includes(RESOURCE) || prompts.includes(PROMPT) };
}

const NOT_FOUND = {
  read: expect.stringContaining(`Resource not found: ${RESOURCE}`),
  got: expect.stringContaining(`Prompt ${PROMPT} not found`),
  listed: false,
};

describe("a source's resources and prompts are its owner's alone", { timeout: 60_000 }, () => {
  it("serves the owner, and another user finds nothing", async () => {
    const { owner } = await federatedSource();
    expect(await reach(await connectGateway(owner))).toEqual({ read: `ok ${RESOURCE}`, got: "ok 1", listed: true });
    // The same slug is free for another user: theirs would be their own source, not the owner's.
    const other = await createUser();
    expect(await reach(await connectGateway(other))).toEqual(NOT_FOUND);
  });

  for (const [change, patch] of [
    ["hidden", { hidden: true }],
    ["disabled", { enabled: false }],
  ] as const) {
    it(`serves nothing of a ${change} source`, async () => {
      const { owner, id } = await federatedSource();
      const patched = await api(owner, "PATCH", `/api/sources/${id}`, { body: patch });
      expect(patched.status).toBe(200);
      expect(await reach(await connectGateway(owner))).toEqual(NOT_FOUND);
    });
  }

  it("serves nothing of a deleted source", async () => {
    const { owner, id } = await federatedSource();
    expect((await api(owner, "DELETE", `/api/sources/${id}`)).status).toBe(200);
    expect(await reach(await connectGateway(owner))).toEqual(NOT_FOUND);
  });
});

describe("scopes of /mcp's resources and prompts", { timeout: 60_000 }, () => {
  /** The HTTP status of a 2025-11-25 request of `method` with `params` on /mcp. */
  async function statusOf(user: TestUser, method: string, params: Record<string, unknown>): Promise<number> {
    return (await workerFetch(rpcRequest("/mcp", user.token, "2025-11-25", { method, params }))).status;
  }

  it("a source's need gateway:read; a built-in's keep their server's scope", async () => {
    const { owner } = await federatedSource();
    const tasksOnly = await withScopedToken(owner, ["tasks:read"]);
    const gatewayOnly = await withScopedToken(owner, ["gateway:read"]);
    expect(await statusOf(tasksOnly, "resources/read", { uri: RESOURCE })).toBe(403);
    expect(await statusOf(tasksOnly, "prompts/get", { name: PROMPT, arguments: { who: "x" } })).toBe(403);
    expect(
      await statusOf(tasksOnly, "completion/complete", { ref: { type: "ref/prompt", name: PROMPT }, argument: { name: "who", value: "" } }),
    ).toBe(403);
    expect(await statusOf(gatewayOnly, "resources/read", { uri: RESOURCE })).toBe(200);
    expect(await statusOf(gatewayOnly, "prompts/get", { name: PROMPT, arguments: { who: "x" } })).toBe(200);
    expect(await statusOf(gatewayOnly, "resources/read", { uri: "task://1" })).toBe(403);
    expect(await statusOf(gatewayOnly, "prompts/get", { name: "review_tasks", arguments: {} })).toBe(403);
    expect(await statusOf(tasksOnly, "prompts/get", { name: "review_tasks", arguments: {} })).toBe(200);
  });
});

describe("bad input on /mcp's resources and prompts", { timeout: 60_000 }, () => {
  /** The JSON-RPC error of a 2025-11-25 request on /mcp (its HTTP status must be 200). */
  async function errorOf(user: TestUser, method: string, params: Record<string, unknown>): Promise<{ code: number; message: string }> {
    const response = await workerFetch(rpcRequest("/mcp", user.token, "2025-11-25", { method, params }));
    expect(response.status).toBe(200);
    const message = await rpcResponse(response);
    expect(message.error, JSON.stringify(message)).toBeDefined();
    return message.error as { code: number; message: string };
  }

  it("answers an unknown URI, prompt or template -32602 naming it", async () => {
    const { owner } = await federatedSource();
    expect(await errorOf(owner, "resources/read", { uri: "demo://nosuch__x/1" })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("demo://nosuch__x/1"),
    });
    expect(await errorOf(owner, "resources/read", { uri: "not a uri" })).toMatchObject({ code: -32602 });
    expect(await errorOf(owner, "prompts/get", { name: "nosuch__hello" })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("nosuch__hello"),
    });
    const completion = await errorOf(owner, "completion/complete", {
      ref: { type: "ref/resource", uri: "demo://nosuch__x/{id}" },
      argument: { name: "id", value: "1" },
    });
    expect(completion).toMatchObject({ code: -32602, message: expect.stringContaining("demo://nosuch__x/{id}") });
  });

  it("leaves out what an upstream lists that /mcp cannot name, and serves the rest", async () => {
    const { owner } = await federatedSource();
    const client = await connectGateway(owner);
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.uri.includes("fed__")).map((resource) => resource.uri)).toEqual([RESOURCE]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.filter((template) => template.name.startsWith("fed__"))).toEqual([
      expect.objectContaining({ name: "fed__good", uriTemplate: "demo://fed__ok/{id}" }),
    ]);
    const read = await client.readResource({ uri: "demo://fed__ok/42" });
    expect(read.contents[0]).toMatchObject({ uri: "demo://fed__ok/42", text: "read demo://ok/42" });
  });

  it("a source serving only tools loses nothing, and costs the others nothing", async () => {
    const { owner } = await federatedSource();
    const { status } = await registerSource(owner, fixtureUrl("echo"), { name: "Only Tools" });
    expect(status).toBe(201);
    const client = await connectGateway(owner);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(RESOURCE);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain(PROMPT);
    const echoed = await client.callTool({ name: "only_tools__echo", arguments: { said: "still here" } });
    expect(echoed.structuredContent).toEqual({ said: "still here" });
  });

  it("audits each forwarded request with its method", async () => {
    const { owner } = await federatedSource();
    await (await connectGateway(owner)).readResource({ uri: RESOURCE });
    const row = await eventually(
      () =>
        env.DB.prepare("SELECT payload FROM audit_log WHERE user_id = ? AND type = 'GATEWAY_CALL' AND payload LIKE '%resources/read%'")
          .bind(owner.id)
          .first<{ payload: string }>(),
      "the GATEWAY_CALL row of the read",
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(parseQueueEvent(JSON.parse(row.payload)).success).toBe(true);
    expect(JSON.parse(row.payload)).toMatchObject({
      gateway_call: { source_slug: "fed", method: "resources/read", tool: "resources/read", outcome: "ok" },
    });
  });
});
