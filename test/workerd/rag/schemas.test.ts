/** The shared zod schemas: defaults, bounds and the field each error names — on MCP as on REST. */
import { describe, expect, it } from "vitest";
import {
  basicInput,
  basicRerankInput,
  colbertInput,
  cragInput,
  globalGraphragInput,
  graphragInput,
  ingestInput,
  queryResult,
} from "../../../workers/rag/rag.schema";
import { connect } from "../../helpers/mcp";
import { callError } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

describe("query input schemas", () => {
  it("fill every default", () => {
    expect(basicInput.parse({ query: "  q  " })).toEqual({
      query: "q",
      top_k: 5,
      include_sources: true,
      include_metadata: false,
      max_tokens: 512,
      ranking_depth: 0,
      fusion_method: "weighted",
      vector_weight: 0.2,
    });
    expect(basicRerankInput.parse({ query: "q" }).rerank_depth).toBe(100);
    expect(cragInput.parse({ query: "q" })).toMatchObject({ confidence_threshold: 0.6, correction_strategy: "expand" });
    expect(graphragInput.parse({ query: "q" })).toMatchObject({ graph_traversal_depth: 1, graph_weight: 1 });
    expect(colbertInput.parse({ query: "q" })).toMatchObject({ interaction_threshold: 0.5, candidate_depth: 100 });
    expect(globalGraphragInput.parse({ query: "q" }).max_communities).toBe(5);
  });

  it("accept the documented bounds", () => {
    expect(basicInput.safeParse({ query: "x".repeat(8000), top_k: 50, max_tokens: 4096, timeout_ms: 60_000 }).success).toBe(true);
    expect(basicInput.safeParse({ query: "q", request_id: "3f1c2a4e-8b7d-4c6e-9a1b-2d3e4f5a6b7c" }).success).toBe(true);
  });

  it.each([
    [{ query: "" }, "query"],
    [{ query: "x".repeat(8001) }, "query"],
    [{ query: "q", top_k: 0 }, "top_k"],
    [{ query: "q", top_k: 51 }, "top_k"],
    [{ query: "q", top_k: 2.5 }, "top_k"],
    [{ query: "q", max_tokens: 4097 }, "max_tokens"],
    [{ query: "q", timeout_ms: 60_001 }, "timeout_ms"],
    [{ query: "q", request_id: "not-a-uuid" }, "request_id"],
    // a UUID, but version 1: the issue asks for v4
    [{ query: "q", request_id: "3f1c2a4e-8b7d-1c6e-9a1b-2d3e4f5a6b7c" }, "request_id"],
    [{ query: "q", vector_weight: 1.5 }, "vector_weight"],
    [{ query: "q", fusion_method: "max" }, "fusion_method"],
  ])("reject %j naming %s", (input, field) => {
    const result = basicInput.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([field]);
  });

  it.each([
    [cragInput, { query: "q", confidence_threshold: 2 }, "confidence_threshold"],
    [cragInput, { query: "q", correction_strategy: "retry" }, "correction_strategy"],
    [graphragInput, { query: "q", graph_traversal_depth: 4 }, "graph_traversal_depth"],
    [colbertInput, { query: "q", interaction_threshold: -0.1 }, "interaction_threshold"],
    [basicRerankInput, { query: "q", rerank_depth: 201 }, "rerank_depth"],
    [globalGraphragInput, { query: "q", max_communities: 0 }, "max_communities"],
  ] as const)("pipeline parameter %#: rejects naming %s", (schema, input, field) => {
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([field]);
  });
});

describe("ingest schema", () => {
  it("defaults title, source, metadata and chunking", () => {
    expect(ingestInput.parse({ documents: [{ text: "t" }] })).toEqual({
      documents: [{ title: "", text: "t", source: "", metadata: {} }],
      chunk_size: 256,
      chunk_overlap: 32,
    });
  });

  it.each([
    [{ documents: [] }, "documents"],
    [{ documents: Array.from({ length: 101 }, () => ({ text: "t" })) }, "documents"],
    [{ documents: [{ text: "   " }] }, "documents.0.text"],
    [{ documents: [{ text: "t", id: "" }] }, "documents.0.id"],
    [{ documents: [{ text: "t", metadata: [] }] }, "documents.0.metadata"],
    [{ documents: [{ text: "t" }], chunk_size: 10 }, "chunk_size"],
  ])("rejects %# naming %s", (input, field) => {
    const result = ingestInput.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.join(".")).toBe(field);
  });
});

describe("output schema", () => {
  it("requires the documented fields and non-negative timings", () => {
    const base = {
      answer: "a",
      retrieved_documents: [{ doc_id: "1", title: "", content: "c", score: 1, source: "" }],
      sources: ["s"],
      metadata: {
        pipeline_name: "rag_basic",
        execution_time_ms: 1,
        tokens_used: 3,
        embedder: "e",
        reranker: "r",
        generator: "g",
        vector_index: "d1-exact",
        candidates: 4,
      },
      performance_metrics: { execution_time_ms: 1, retrieval_time_ms: 0.5, generation_time_ms: 0.5, tokens_used: 3 },
      response_id: "id",
    };
    expect(queryResult.safeParse(base).success).toBe(true);
    const negative = { ...base, performance_metrics: { ...base.performance_metrics, retrieval_time_ms: -1 } };
    expect(queryResult.safeParse(negative).success).toBe(false);
    expect(queryResult.safeParse({ ...base, response_id: undefined }).success).toBe(false);
  });
});

describe("invalid tool arguments over MCP", () => {
  it.each([
    ["rag_basic", { query: "" }, "query", /must not be empty/],
    ["rag_basic", { query: "q", top_k: 51 }, "top_k", /<=50/],
    ["rag_basic", { query: "q", request_id: "abc" }, "request_id", /UUID v4/],
    ["rag_crag", { query: "q", correction_strategy: "guess" }, "correction_strategy", /expected one of/],
    ["rag_graphrag", { query: "q", graph_traversal_depth: 9 }, "graph_traversal_depth", /<=3/],
    ["rag_colbert", { query: "q", interaction_threshold: 3 }, "interaction_threshold", /<=1/],
    ["rag_ingest", { documents: [{ title: "no text" }] }, "text", /expected string/],
    ["rag_delete_document", {}, "doc_id", /expected string/],
  ])("%s %j is rejected naming %s", async (tool, args, field, says) => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const text = await callError(client, tool, args);
    await client.close();
    expect(text).toMatch(new RegExp(`\\b${field}\\b`));
    expect(text).toMatch(says);
    expect(text).not.toMatch(/\n\s+at /);
  });
});
