/** The ingest path: rag_ingest (chunks, FTS, vectors, graph, progress), listing, deletion, and the same on REST. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { CORPUS, ingestCorpus, type IngestResult } from "../../helpers/rag";
import { api } from "../../helpers/rest";
import { callError } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

async function count(sql: string, ...params: unknown[]): Promise<number> {
  const row = await env.DB.prepare(sql)
    .bind(...params)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("rag_ingest", () => {
  it("stores documents, chunks, FTS rows, vectors and the entity graph, and counts them", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const result = await ingestCorpus(client);

    expect(result.document_count).toBe(CORPUS.length);
    expect(result.chunk_count).toBe(CORPUS.length);
    expect(result.embedder).toBe("local:hashed-ngram-512");
    expect(result.documents.map((d) => [d.doc_id, d.status])).toEqual(CORPUS.map((d) => [d.id, "created"]));
    expect(result.documents.every((d) => d.chunks === 1 && d.entities > 0)).toBe(true);

    expect(await count("SELECT count(*) AS n FROM rag_chunks WHERE user_id = ? AND vector IS NOT NULL", user.id)).toBe(CORPUS.length);
    expect(await count("SELECT count(*) AS n FROM rag_chunks_fts WHERE rag_chunks_fts MATCH 'microbiome'")).toBeGreaterThanOrEqual(1);
    expect(await count("SELECT count(*) AS n FROM rag_entities WHERE user_id = ? AND name = 'tnf'", user.id)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM rag_relations WHERE user_id = ?", user.id)).toBeGreaterThan(0);
    const collection = await env.DB.prepare("SELECT version, document_count FROM rag_collections WHERE user_id = ?").bind(user.id).first();
    expect(collection).toMatchObject({ version: 1, document_count: CORPUS.length });
    await client.close();
  });

  it("splits long documents into overlapping chunks on sentence boundaries", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7} in some detail here.`);
    const result = await callOk<IngestResult>(client, "rag_ingest", {
      documents: [{ id: "long", title: "Long", text: sentences.join(" ") }],
      chunk_size: 60,
      chunk_overlap: 12,
    });
    const chunks = await env.DB.prepare("SELECT content FROM rag_chunks WHERE user_id = ? ORDER BY position")
      .bind(user.id)
      .all<{ content: string }>();
    expect(result.documents[0]!.chunks).toBe(chunks.results.length);
    expect(chunks.results.length).toBeGreaterThan(5);
    for (const [i, { content }] of chunks.results.entries()) {
      expect(content.split(/\s+/).length).toBeLessThanOrEqual(60);
      expect(content).toMatch(/^Sentence number \d+/);
      if (i > 0) expect(chunks.results[i - 1]!.content.endsWith(content.split(". ")[0]!.concat("."))).toBe(true);
    }
    await client.close();
  });

  it("replaces a document with a known id, skips an unchanged one, and keeps other users apart", async () => {
    const user = await createUser();
    const other = await createUser();
    const client = await connect("rag", user.token);
    const otherClient = await connect("rag", other.token);
    await ingestCorpus(client);
    await ingestCorpus(otherClient, CORPUS.slice(0, 2));

    const again = await ingestCorpus(client, [CORPUS[0]!, { ...CORPUS[1]!, text: "TNF is replaced by a new text about cytokines." }]);
    expect(again.documents.map((d) => d.status)).toEqual(["unchanged", "replaced"]);
    expect(again.document_count).toBe(CORPUS.length);
    expect(await count("SELECT count(*) AS n FROM rag_chunks WHERE user_id = ?", user.id)).toBe(CORPUS.length);
    expect(await count("SELECT count(*) AS n FROM rag_chunks WHERE user_id = ?", other.id)).toBe(2);
    const content = await env.DB.prepare(
      "SELECT c.content FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id WHERE d.user_id = ? AND d.doc_id = 'bio-2'",
    )
      .bind(user.id)
      .first<{ content: string }>();
    expect(content?.content).toContain("cytokines");
    await client.close();
    await otherClient.close();
  });

  it("makes up ids when absent and refuses the same id twice in one call, writing nothing", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const made = await callOk<IngestResult>(client, "rag_ingest", { documents: [{ text: "An untitled note about kidneys." }] });
    expect(made.documents[0]!.doc_id).toMatch(/^[0-9a-f-]{36}$/);
    const text = await callError(client, "rag_ingest", {
      documents: [
        { id: "a", text: "one" },
        { id: "a", text: "two" },
      ],
    });
    expect(text).toMatch(/documents\.1\.id: "a" appears twice/);
    expect(await count("SELECT count(*) AS n FROM rag_documents WHERE user_id = ?", user.id)).toBe(1);
    await client.close();
  });

  it("sends progress notifications when the request carries a progress token", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const documents = Array.from({ length: 25 }, (_, i) => ({ id: `p-${i}`, text: `Document ${i} about protein folding and chaperones.` }));
    const progress: { progress: number; total?: number }[] = [];
    await client.callTool({ name: "rag_ingest", arguments: { documents } }, { onprogress: (p) => progress.push(p) });
    expect(progress.map((p) => p.progress)).toEqual([10, 20, 25]);
    expect(progress.every((p) => p.total === 25)).toBe(true);
    await client.close();
  });
});

describe("rag_list_documents and rag_delete_document", () => {
  it("pages through documents and deletes one with its chunks and graph mentions", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    await ingestCorpus(client);

    const first = await callOk<{ documents: { doc_id: string; metadata: unknown }[]; total: number; next_cursor: string | null }>(
      client,
      "rag_list_documents",
      { limit: 4 },
    );
    expect(first.total).toBe(CORPUS.length);
    expect(first.documents.map((d) => d.doc_id)).toEqual(CORPUS.slice(0, 4).map((d) => d.id));
    expect(first.documents[0]!.metadata).toEqual({ year: 2019 });
    const second = await callOk<{ documents: { doc_id: string }[]; next_cursor: string | null }>(client, "rag_list_documents", {
      limit: 4,
      cursor: first.next_cursor,
    });
    expect(second.documents.map((d) => d.doc_id)).toEqual(CORPUS.slice(4).map((d) => d.id));
    expect(second.next_cursor).toBeNull();

    const deleted = await callOk(client, "rag_delete_document", { doc_id: "bio-2" });
    expect(deleted).toEqual({ deleted: true, doc_id: "bio-2", chunks: 1 });
    expect(await count("SELECT count(*) AS n FROM rag_chunks WHERE user_id = ?", user.id)).toBe(CORPUS.length - 1);
    expect(await count("SELECT count(*) AS n FROM rag_entities WHERE user_id = ? AND name = 'tnf'", user.id)).toBe(0);
    expect(
      await count(
        "SELECT count(*) AS n FROM rag_chunks_fts f JOIN rag_chunks c ON c.id = f.rowid WHERE rag_chunks_fts MATCH 'rheumatoid' AND c.user_id = ?",
        user.id,
      ),
    ).toBe(0);
    expect(await callError(client, "rag_delete_document", { doc_id: "bio-2" })).toMatch(/not_found: Document bio-2 not found/);
    expect(await callError(client, "rag_list_documents", { cursor: "nope" })).toMatch(/cursor/);
    await client.close();
  });
});

describe("/api/documents", () => {
  it("ingests, lists, reads and deletes over REST with the same rules", async () => {
    const user = await createUser();
    const created = await api<IngestResult>(user, "POST", "/api/documents", { body: { documents: CORPUS.slice(0, 3) } });
    expect(created.status).toBe(201);
    expect(created.body.document_count).toBe(3);

    const list = await api<{ documents: { doc_id: string }[]; total: number }>(user, "GET", "/api/documents?limit=2");
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.documents.map((d) => d.doc_id)).toEqual(["bio-1", "bio-2"]);

    const one = await api<{ document: { doc_id: string; title: string } }>(user, "GET", "/api/documents/bio-3");
    expect(one.body.document).toMatchObject({ doc_id: "bio-3", title: CORPUS[2]!.title });

    const removed = await api(user, "DELETE", "/api/documents/bio-3");
    expect(removed.body).toEqual({ deleted: true, doc_id: "bio-3", chunks: 1 });
    const gone = await api<{ error: { code: string } }>(user, "GET", "/api/documents/bio-3");
    expect(gone.status).toBe(404);

    const invalid = await api<{ error: { code: string; message: string } }>(user, "POST", "/api/documents", {
      body: { documents: [{ text: "" }] },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toMatch(/documents\.0\.text/);
    const other = await createUser();
    expect((await api(other, "GET", "/api/documents/bio-1")).status).toBe(404);
  });
});
