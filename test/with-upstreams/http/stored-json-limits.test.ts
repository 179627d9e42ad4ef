/**
 * Free-form JSON a user stores and reads back — RAG metadata, a stdio source's manifest, the
 * schemas an upstream lists — is limited to 32 levels of nesting (and a size), so every listing
 * that returns it stays parseable by common JSON clients. A deeper value is refused naming the
 * field, and nothing is stored.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../../workers/lib/stored-json";
import { connectGateway, type SourceBody } from "../../helpers/gateway";
import { callOk, connect, ERAS, textOf } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { callError } from "../../helpers/tasks";
import { fixtureUrl, registerSource, upstreams } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

/** An object nested `levels` deep: `{}` is 1, `{"a":{}}` is 2, `{"a":[{}]}` is 3. */
function nested(levels: number): Record<string, unknown> {
  let value: unknown = {};
  for (let i = 2; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
  return { a: value };
}

async function rowCount(table: "rag_documents" | "sources", user: TestUser): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?`).bind(user.id).first<{ n: number }>();
  return row!.n;
}

const doc = (metadata: unknown) => ({ id: "d1", title: "t", text: "some text to index", metadata });

describe("RAG document metadata", () => {
  it("REST: 3,000 levels and 33 levels are 400s naming the field; 32 levels is stored and read back", async () => {
    const user = await createUser();
    for (const levels of [3000, MAX_JSON_DEPTH + 1]) {
      const res = await api<ErrorBody>(user, "POST", "/api/documents", { body: { documents: [doc(nested(levels))] } });
      expect(res.status, String(levels)).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_input", details: { field: "documents.0.metadata" } });
      expect(res.body.error.message).toMatch(/documents\.0\.metadata: must nest at most 32 levels/);
    }
    expect(await rowCount("rag_documents", user)).toBe(0);

    const deepest = nested(MAX_JSON_DEPTH);
    expect((await api(user, "POST", "/api/documents", { body: { documents: [doc(deepest)] } })).status).toBe(201);
    const listed = await api<{ documents: { metadata: unknown }[] }>(user, "GET", "/api/documents");
    expect(listed.body.documents[0]!.metadata).toEqual(deepest);
  });

  it("REST: metadata over 16 KiB is refused naming the field", async () => {
    const user = await createUser();
    const res = await api<ErrorBody>(user, "POST", "/api/documents", { body: { documents: [doc({ blob: "x".repeat(17 * 1024) })] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/documents\.0\.metadata: must be at most 16384 bytes/);
    expect(await rowCount("rag_documents", user)).toBe(0);
  });

  it.each(ERAS)("MCP rag_ingest (%s) refuses 3,000 levels naming the field", async (era) => {
    const user = await createUser();
    const client = await connect("rag", user.token, era);
    const text = await callError(client, "rag_ingest", { documents: [doc(nested(3000))] });
    expect(text).toMatch(/documents\.0\.metadata/);
    expect(text).toMatch(/at most 32 levels/);
    expect(await rowCount("rag_documents", user)).toBe(0);
    await client.close();
  });
});

describe("a stdio source's manifest", { timeout: 60_000 }, () => {
  const manifest = (extra: unknown) => ({ name: "deep", command: "node", extra });

  it("REST: a manifest nested 3,000 levels is a 400 naming manifest, and no source is stored", async () => {
    const user = await createUser();
    const res = await api<ErrorBody>(user, "POST", "/api/sources", {
      body: {
        name: "deep",
        url: upstreams().bridge_fixture,
        mcp_transport_type: "stdio",
        bridge_token: upstreams().bridge_token,
        manifest: manifest(nested(3000)),
      },
    });
    expect(res.status).toBe(400);
    const error = res.body.error;
    expect(error).toMatchObject({ code: "invalid_input", details: { field: "manifest" } });
    expect(error.message).toMatch(/manifest: must nest at most 32 levels/);
    expect(await rowCount("sources", user)).toBe(0);
  });

  it("gateway_add_source refuses it too", async () => {
    const user = await createUser();
    const client = await connectGateway(user);
    const result = await client.callTool({
      name: "gateway_add_source",
      arguments: {
        name: "deep",
        url: upstreams().bridge_fixture,
        mcp_transport_type: "stdio",
        bridge_token: upstreams().bridge_token,
        manifest: manifest(nested(3000)),
      },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/manifest/);
    expect(await rowCount("sources", user)).toBe(0);
    await client.close();
  });
});

describe("an upstream's tool schemas", { timeout: 60_000 }, () => {
  it("a schema nested 41 levels fails discovery with a clear error; nothing reaches the inventory or /mcp", async () => {
    const user = await createUser();
    const res = await registerSource(user, fixtureUrl("deep"), { name: "Deep" });
    expect(res.status).toBe(201);
    const source = await api<{ sources: SourceBody[] }>(user, "GET", "/api/sources");
    const [stored] = source.body.sources;
    expect(stored!.tool_count).toBe(0);
    expect(stored!.last_discovery_error).toMatch(/^protocol: tools\/list: tool "nested" inputSchema: must nest at most 32 levels/);
    const tools = await env.DB.prepare("SELECT count(*) AS n FROM source_tools WHERE source_id = ?")
      .bind(stored!.id)
      .first<{ n: number }>();
    expect(tools!.n).toBe(0);
    const listed = await callOk<{ sources: unknown[] }>(await connectGateway(user), "gateway_list_sources");
    expect(JSON.stringify(listed).length).toBeLessThan(20_000);
  });
});
