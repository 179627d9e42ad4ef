/**
 * Every query tool over MCP on a small corpus: the output contract (validated against the
 * outputSchema by the client), one entry per document, best first, provenance in metadata, and
 * each pipeline's own metadata.
 */
import { describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connect, textOf } from "../../helpers/mcp";
import { ask, CORPUS, ingestCorpus, type QueryResult } from "../../helpers/rag";
import { createUser } from "../../helpers/users";
import { queryResult } from "../../../workers/rag/rag.schema";

const PIPELINES = ["rag_basic", "rag_basic_rerank", "rag_crag", "rag_graphrag", "rag_colbert", "rag_global_graphrag"] as const;

async function corpusClient(): Promise<Client> {
  const user = await createUser();
  const client = await connect("rag", user.token);
  await ingestCorpus(client);
  return client;
}

function expectContract(result: QueryResult, pipeline: string, topK: number): void {
  const ids = result.retrieved_documents.map((d) => d.doc_id);
  expect(new Set(ids).size, "one entry per document").toBe(ids.length);
  expect(ids.length).toBeLessThanOrEqual(topK);
  const scores = result.retrieved_documents.map((d) => d.score);
  expect(scores, "best first").toEqual([...scores].sort((a, b) => b - a));
  for (const doc of result.retrieved_documents) {
    const source = CORPUS.find((c) => c.id === doc.doc_id)!;
    expect(source, `doc_id ${doc.doc_id} is an ingested id`).toBeDefined();
    expect(source.text).toContain(doc.content);
  }
  expect(result.metadata).toMatchObject({
    pipeline_name: pipeline,
    embedder: "local:hashed-ngram-512",
    reranker: "local:lexical-cross-scorer",
    generator: "local:extractive",
    vector_index: "d1-exact",
  });
  const perf = result.performance_metrics;
  for (const value of [perf.execution_time_ms, perf.retrieval_time_ms, perf.generation_time_ms, perf.tokens_used])
    expect(value).toBeGreaterThanOrEqual(0);
  expect(result.metadata.tokens_used).toBe(perf.tokens_used);
  expect(result.metadata.execution_time_ms).toBe(perf.execution_time_ms);
}

describe.each(PIPELINES)("%s", (pipeline) => {
  it("answers from the collection with the full output contract", async () => {
    const client = await corpusClient();
    const requestId = crypto.randomUUID();
    const raw = await client.callTool({
      name: pipeline,
      arguments: { query: "Does TNF drive inflammation in arthritis?", top_k: 3, request_id: requestId },
    });
    expect(raw.isError).toBeFalsy();
    const result = queryResult.parse(raw.structuredContent);
    expectContract(result, pipeline, 3);
    expect(result.response_id).toBe(requestId);
    expect(result.retrieved_documents[0]!.doc_id).toBe("bio-2");
    expect(result.answer).toMatch(/TNF/);
    expect(result.answer).toMatch(/\[1\]/);
    expect(result.sources[0]).toBe("journal-b");
    expect(new Set(result.sources).size).toBe(result.sources.length);
    expect(textOf(raw)).toContain(result.answer);
    await client.close();
  });

  it("generates a request id when none is given, honours include_* and ranking_depth", async () => {
    const client = await corpusClient();
    const result = await ask(client, pipeline, {
      query: "stem cells tissue repair",
      top_k: 2,
      include_sources: false,
      include_metadata: true,
      ranking_depth: 6,
    });
    expect(result.response_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.sources).toEqual([]);
    expect(result.retrieved_documents[0]).toMatchObject({ doc_id: "bio-3", metadata: { year: 2021 } });
    expect(result.ranking!.length).toBeGreaterThanOrEqual(result.retrieved_documents.length);
    expect(result.ranking!.slice(0, result.retrieved_documents.length).map((r) => r.doc_id)).toEqual(
      result.retrieved_documents.map((d) => d.doc_id),
    );
    const plain = await ask(client, pipeline, { query: "stem cells tissue repair", top_k: 2 });
    expect(plain.retrieved_documents[0]!.metadata).toBeUndefined();
    expect(plain.ranking).toBeUndefined();
    await client.close();
  });

  it("answers plainly, with no documents, from an empty collection", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const result = await ask(client, pipeline, { query: "anything at all" });
    expect(result.retrieved_documents).toEqual([]);
    expect(result.answer).toBe("None of your documents answers this question.");
    await client.close();
  });
});

describe("pipeline-specific metadata", () => {
  it("rag_basic: top_k documents, lexical-only and rrf fusion both work", async () => {
    const client = await corpusClient();
    const five = await ask(client, "rag_basic", { query: "insulin resistance obesity sleep microbiome" });
    expect(five.retrieved_documents).toHaveLength(5);
    const lexical = await ask(client, "rag_basic", { query: "measles vaccination", vector_weight: 0 });
    expect(lexical.retrieved_documents.map((d) => d.doc_id)).toEqual(["bio-5"]);
    const rrf = await ask(client, "rag_basic", { query: "measles vaccination", fusion_method: "rrf" });
    expect(rrf.metadata.fusion_method).toBe("rrf");
    expect(rrf.retrieved_documents[0]!.doc_id).toBe("bio-5");
    await client.close();
  });

  it("rag_crag corrects only below its confidence threshold, with each strategy", async () => {
    const client = await corpusClient();
    const query = "Does blocking TNF reduce joint damage, and does IL-6 help?";
    const confident = await ask(client, "rag_crag", { query, confidence_threshold: 0 });
    expect(confident.metadata).toMatchObject({ correction_applied: false, correction_strategy: "expand" });
    expect(confident.metadata.confidence_score).toBeGreaterThan(0);
    expect(confident.metadata.confidence_score).toBeLessThanOrEqual(1);
    expect(confident.metadata.corrected_queries).toBeUndefined();
    for (const strategy of ["rewrite", "decompose", "expand"] as const) {
      const corrected = await ask(client, "rag_crag", { query, confidence_threshold: 1, correction_strategy: strategy });
      expect(corrected.metadata).toMatchObject({ correction_applied: true, correction_strategy: strategy });
      expect(corrected.metadata.corrected_queries!.length).toBeGreaterThan(0);
      expect(corrected.retrieved_documents[0]!.doc_id).toBe("bio-2");
    }
    const decomposed = await ask(client, "rag_crag", { query, confidence_threshold: 1, correction_strategy: "decompose" });
    expect(decomposed.metadata.corrected_queries).toEqual(["Does blocking TNF reduce joint damage", "does IL-6 help?"]);
    await client.close();
  });

  it("rag_colbert reports token interactions and finds word-form variants", async () => {
    const client = await corpusClient();
    // "inflammatory" and "inflammation" have different stems but share most character trigrams.
    const result = await ask(client, "rag_colbert", { query: "inflammatory joints", interaction_threshold: 0.5 });
    expect(result.metadata.token_interactions).toBeGreaterThan(0);
    expect(result.retrieved_documents[0]!.doc_id).toBe("bio-2");
    const strict = await ask(client, "rag_colbert", { query: "inflammatory joints", interaction_threshold: 1 });
    expect(strict.metadata.token_interactions!).toBeLessThan(result.metadata.token_interactions!);
    await client.close();
  });

  it("rag_graphrag reports depth, rrf score and the entities it reached", async () => {
    const client = await corpusClient();
    const result = await ask(client, "rag_graphrag", { query: "What does IL-6 do?", graph_traversal_depth: 2 });
    expect(result.metadata.graph_traversal_depth).toBe(2);
    expect(result.metadata.rrf_score).toBeGreaterThan(0);
    expect(result.metadata.entities).toContain("IL-6");
    // TNF is reached through its relation to IL-6 in the graph.
    expect(result.metadata.entities).toContain("TNF");
    expect(result.retrieved_documents[0]!.doc_id).toBe("bio-2");
    const seedsOnly = await ask(client, "rag_graphrag", { query: "What does IL-6 do?", graph_traversal_depth: 0 });
    expect(seedsOnly.metadata.entities).not.toContain("TNF");
    await client.close();
  });

  it("rag_global_graphrag answers over community summaries and cites them", async () => {
    const client = await corpusClient();
    const result = await ask(client, "rag_global_graphrag", {
      query: "What are the main themes about insulin and sleep?",
      max_communities: 3,
    });
    expect(result.metadata.communities!.length).toBeGreaterThan(0);
    expect(result.metadata.communities!.length).toBeLessThanOrEqual(3);
    expect(result.answer).toMatch(/related entities/);
    expect(result.retrieved_documents.length).toBeGreaterThan(0);
    await client.close();
  });
});
