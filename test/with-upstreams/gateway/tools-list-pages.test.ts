/**
 * /mcp tools/list in pages (GATEWAY_TOOLS_LIST_PAGE_SIZE, 500 here as by default; decision 0051):
 * a user with more tools than one page gets `nextCursor`, the official SDK client follows it (on
 * both eras) and lists every tool once, a cursor the gateway did not issue is answered -32602, and
 * a normal user's list is one page. The big inventory is one real source whose stored tool rows
 * are multiplied in D1, each with its pin (as a discovery of a large upstream would store them).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { workerFetch } from "../../helpers/mcp";
import { modernPost, rpcRequest, rpcResponse } from "../../helpers/rpc";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

const PAGE_SIZE = 500;
const EXTRA_TOOLS = 600;

/** A user whose one source (the echo fixture) lists `EXTRA_TOOLS` more tools: echo_0001 … */
async function userWithManyTools(): Promise<{ owner: TestUser; slug: string }> {
  const owner = await createUser();
  const { status, body } = await registerSource(owner, fixtureUrl("echo"), { name: `Many ${crypto.randomUUID().slice(0, 6)}` });
  expect(status, JSON.stringify(body)).toBe(201);
  await env.DB.prepare(
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) " +
      "INSERT INTO source_tools (source_id, name, alias, title, description, input_schema, output_schema, annotations, discovered_at) " +
      "SELECT t.source_id, printf('echo_%04d', n.i), printf('echo_%04d', n.i), " +
      "t.title, t.description, t.input_schema, t.output_schema, t.annotations, t.discovered_at " +
      "FROM n, source_tools t WHERE t.source_id = ? AND t.name = 'echo'",
  )
    .bind(EXTRA_TOOLS, body.source.id)
    .run();
  // Each multiplied tool approved as it stands (a pin matching its stored hash), as a discovery would pin it.
  await env.DB.prepare(
    "INSERT INTO source_tool_pins (source_id, name, definition_hash, definition, approved_at) " +
      "SELECT source_id, name, definition_hash, '{}', discovered_at FROM source_tools WHERE source_id = ? AND name LIKE 'echo\\_%' ESCAPE '\\'",
  )
    .bind(body.source.id)
    .run();
  return { owner, slug: body.source.slug };
}

async function listPage(owner: TestUser, cursor?: string): Promise<{ names: string[]; nextCursor: unknown }> {
  const params = cursor === undefined ? {} : { cursor };
  const answer = await rpcResponse(await workerFetch(rpcRequest("/mcp", owner.token, "2025-11-25", { method: "tools/list", params })));
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  const tools = answer.result?.["tools"] as { name: string }[];
  return { names: tools.map((tool) => tool.name), nextCursor: answer.result?.["nextCursor"] };
}

describe("/mcp tools/list in pages", { timeout: 60_000 }, () => {
  it("a user with more tools than a page: pages of 500 joined by nextCursor, every tool once", async () => {
    const { owner, slug } = await userWithManyTools();
    const first = await listPage(owner);
    expect(first.names).toHaveLength(PAGE_SIZE);
    expect(typeof first.nextCursor).toBe("string");

    const second = await listPage(owner, first.nextCursor as string);
    expect(second.nextCursor).toBeUndefined();
    const all = [...first.names, ...second.names];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain(`${slug}__echo`);
    expect(all).toContain(`${slug}__echo_${String(EXTRA_TOOLS).padStart(4, "0")}`);
    expect(all.filter((name) => name.startsWith(`${slug}__`))).toHaveLength(EXTRA_TOOLS + 1);
    // Built-ins come first: the first page starts with them.
    expect(first.names[0]?.startsWith(`${slug}__`)).toBe(false);
  });

  it.each(["2025-11-25", "2026-07-28"] as const)("the SDK client (%s) pages through the whole list", async (era) => {
    const { owner, slug } = await userWithManyTools();
    const first = await listPage(owner);
    const client = await connectGateway(owner, { pin2026: era === "2026-07-28" });
    // Without a cursor the client follows nextCursor itself: more tools than one page come back.
    const everything = await client.listTools();
    expect(everything.tools.length).toBe(first.names.length + (await listPage(owner, first.nextCursor as string)).names.length);
    expect(everything.tools.filter((tool) => tool.name.startsWith(`${slug}__`))).toHaveLength(EXTRA_TOOLS + 1);
    // With one, it asks for that page alone.
    const rest = await client.listTools({ cursor: first.nextCursor as string });
    expect(rest.tools.length).toBe(everything.tools.length - PAGE_SIZE);
    expect(rest.nextCursor).toBeUndefined();
    await client.close();
  });

  it("a 2026-07-28 page carries nextCursor beside its cache hint", async () => {
    const { owner } = await userWithManyTools();
    const answer = await rpcResponse(await workerFetch("http://localhost/mcp", modernPost(owner.token, "tools/list")));
    expect(answer.result).toMatchObject({ nextCursor: expect.any(String), ttlMs: 30_000 });
    expect(answer.result?.["tools"]).toHaveLength(PAGE_SIZE);
  });

  it("a cursor the gateway did not issue is answered -32602, naming the cursor", async () => {
    const owner = await createUser();
    const request = rpcRequest("/mcp", owner.token, "2025-11-25", { method: "tools/list", params: { cursor: "not-a-cursor" } });
    const answer = await rpcResponse(await workerFetch(request));
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(/cursor: not a cursor returned by tools\/list; omit it to start from the first page/);
  });

  it("a normal user's list is one page, with no nextCursor", async () => {
    const owner = await createUser();
    await registerSource(owner, fixtureUrl("echo"));
    const page = await listPage(owner);
    expect(page.nextCursor).toBeUndefined();
    expect(page.names.length).toBeLessThan(PAGE_SIZE);
  });
});
