/**
 * runQuery's own guarantees with real D1, gate and local models and a test pipeline: the deadline
 * (a timeout error, logged as such, slot given back) and the log row of a successful query.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openDb } from "../../../workers/lib/db";
import { AppError } from "../../../workers/lib/errors";
import { gateLimits, QueryGate } from "../../../workers/rag/gate";
import { createModels } from "../../../workers/rag/models/registry";
import type { Pipeline } from "../../../workers/rag/pipelines/pipeline";
import { type QueryDeps, runQuery } from "../../../workers/rag/query.service";
import { readRagConfig } from "../../../workers/rag/rag.config";
import { basicInput, type BasicInput } from "../../../workers/rag/rag.schema";
import { D1ExactIndex } from "../../../workers/rag/retrieval/exact-index";

function deps(pending: Promise<unknown>[]): QueryDeps {
  const db = openDb(env.DB);
  const config = readRagConfig(env);
  const models = createModels(config, undefined);
  return {
    db,
    config,
    models: () => models,
    index: () => new D1ExactIndex(db, models.embedder.name, models.embedder.dimensions),
    gate: new QueryGate(env.RAG_GATE, gateLimits(config)),
    waitUntil: (promise) => pending.push(promise),
  };
}

/** A pipeline that never finishes on its own: it only ends when the deadline aborts it. */
const stuck: Pipeline<BasicInput> = {
  name: "rag_crag",
  run: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true })),
};

const instant: Pipeline<BasicInput> = {
  name: "rag_graphrag",
  run: async () => ({
    ranked: [
      { chunkId: 1, docId: "d1", title: "T", content: "Cats purr when content.", source: "s", metadata: {}, score: 2 },
      { chunkId: 2, docId: "d1", title: "T", content: "A weaker chunk of d1.", source: "s", metadata: {}, score: 1 },
      { chunkId: 3, docId: "d2", title: "U", content: "Dogs bark.", source: "", metadata: {}, score: 1.5 },
    ],
    candidates: 3,
    metadata: { graph_traversal_depth: 1 },
  }),
};

async function logRow(requestId: string) {
  return env.DB.prepare("SELECT pipeline, outcome, error_code, total_ms FROM rag_query_log WHERE request_id = ?").bind(requestId).first();
}

describe("runQuery", () => {
  it("ends a query at its deadline with a timeout error, logs it and frees the slot", async () => {
    const pending: Promise<unknown>[] = [];
    const requestId = crypto.randomUUID();
    const input = basicInput.parse({ query: "cats", request_id: requestId, timeout_ms: 100 });
    const error = await runQuery(deps(pending), 7, stuck, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "timeout", message: "rag_crag did not finish within its 100 ms timeout" });
    await Promise.all(pending);
    expect(await logRow(requestId)).toMatchObject({ pipeline: "rag_crag", outcome: "timeout", error_code: "timeout" });
    expect(await new QueryGate(env.RAG_GATE, gateLimits(readRagConfig(env))).inFlight("rag_crag")).toBe(0);
  });

  it("keeps each document once at its best chunk, cites it, and logs the query", async () => {
    const pending: Promise<unknown>[] = [];
    const requestId = crypto.randomUUID();
    const result = await runQuery(
      deps(pending),
      7,
      instant,
      basicInput.parse({ query: "Why do cats purr?", request_id: requestId, max_tokens: 4096 }),
    );
    expect(result.retrieved_documents.map((d) => [d.doc_id, d.content])).toEqual([
      ["d1", "Cats purr when content."],
      ["d2", "Dogs bark."],
    ]);
    expect(result.sources).toEqual(["s", "d2"]);
    expect(result.answer).toBe("Cats purr when content. [1]");
    expect(result.metadata).toMatchObject({ pipeline_name: "rag_graphrag", graph_traversal_depth: 1, candidates: 3 });
    expect(result.response_id).toBe(requestId);
    await Promise.all(pending);
    expect(await logRow(requestId)).toMatchObject({ pipeline: "rag_graphrag", outcome: "ok", error_code: null });
  });

  it("caps the generated answer at max_tokens", async () => {
    const result = await runQuery(deps([]), 7, instant, basicInput.parse({ query: "Why do cats purr?", max_tokens: 2 }));
    expect(result.answer.split(/\s+/).length).toBeLessThanOrEqual(2);
  });
});
