/**
 * Contract tests of the production RAG model adapters against the providers' documented wire
 * formats, served by test/upstreams/model-providers.ts (requests recorded, failures on demand).
 * Each adapter must send the documented request, map the documented result, and turn every
 * documented failure into a clear AppError — `busy` with `retry_after_ms` for rate limits,
 * `unavailable` for exhausted quota, `upstream_error` otherwise — never an `internal` 500.
 *
 * Documentation the shapes follow:
 * - OpenAI embeddings: https://platform.openai.com/docs/api-reference/embeddings/create
 * - OpenAI chat completions: https://platform.openai.com/docs/api-reference/chat/create
 * - OpenAI errors and rate limits: https://platform.openai.com/docs/guides/error-codes,
 *   https://platform.openai.com/docs/guides/rate-limits (429, `rate_limit_exceeded`,
 *   `insufficient_quota`, Retry-After)
 * - Rerank (`{ model, query, documents }` → `{ results: [{ index, relevance_score }] }`):
 *   https://docs.cohere.com/reference/rerank, https://jina.ai/reranker/
 * - Workers AI REST: https://developers.cloudflare.com/workers-ai/get-started/rest-api/ (the
 *   `{ result, success, errors, messages }` envelope), models
 *   https://developers.cloudflare.com/workers-ai/models/bge-base-en-v1.5/,
 *   https://developers.cloudflare.com/workers-ai/models/bge-reranker-base/,
 *   https://developers.cloudflare.com/workers-ai/models/llama-3.1-8b-instruct/, errors
 *   https://developers.cloudflare.com/workers-ai/platform/errors/ (3040 out of capacity, 3036
 *   daily allocation, 5007 no such model)
 * - Vectorize v2 REST: https://developers.cloudflare.com/api/resources/vectorize/subresources/indexes/methods/query/,
 *   …/methods/upsert/ (NDJSON body), …/methods/delete_by_ids/; binding semantics
 *   https://developers.cloudflare.com/vectorize/reference/client-api/
 */
import { describe, expect, it } from "vitest";
import { AppError } from "../../../workers/lib/errors";
import { OpenAiEmbedder, OpenAiGenerator, OpenAiReranker } from "../../../workers/rag/models/openai";
import { SYSTEM_PROMPT } from "../../../workers/rag/models/prompt";
import type { CorpusStats } from "../../../workers/rag/models/types";
import { WorkersAiEmbedder, WorkersAiGenerator, WorkersAiReranker } from "../../../workers/rag/models/workers-ai";
import { VectorizeVectorIndex } from "../../../workers/rag/retrieval/vectorize-index";
import { ACCOUNT_ID, API_TOKEN, providerRun, restAi, restVectorize } from "../../helpers/model-providers";

const STATS: CorpusStats = { chunkCount: 10, averageLength: 20, documentFrequency: new Map() };
const PASSAGES = [{ citation: 1, title: "Cats", content: "Cats purr when content." }];
const CANDIDATES = [
  { title: "Dogs", content: "Dogs bark at night.", retrievalScore: 1 },
  { title: "Cats", content: "Cats purr when content.", retrievalScore: 0.5 },
];

async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

describe("OpenAI-compatible adapters", () => {
  const endpoint = (base: string) => ({ baseUrl: `${base}/openai/v1/`, apiKey: "sk-test" });

  it("embeddings: sends model and input in batches of 100, orders by index, checks the size, returns unit vectors", async () => {
    const run = providerRun();
    const texts = Array.from({ length: 105 }, (_, i) => `text number ${i}`);
    const vectors = await new OpenAiEmbedder(endpoint(run.base), "text-embedding-3-small", 8).embed(texts);
    expect(vectors).toHaveLength(105);
    for (const v of vectors) {
      expect(v).toHaveLength(8);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // The server answers in reverse order: the adapter must put vector i with text i.
    const [again] = await new OpenAiEmbedder(endpoint(run.base), "text-embedding-3-small", 8).embed([texts[7]!]);
    expect(Array.from(again!)).toEqual(Array.from(vectors[7]!));
    const requests = await run.requests();
    expect(requests.slice(0, 2).map((r) => [r.method, r.path, r.authorization, r.contentType])).toEqual([
      ["POST", "openai/v1/embeddings", "Bearer sk-test", "application/json"],
      ["POST", "openai/v1/embeddings", "Bearer sk-test", "application/json"],
    ]);
    expect(requests[0]!.body).toEqual({ model: "text-embedding-3-small", input: texts.slice(0, 100) });
    expect(requests[1]!.body).toEqual({ model: "text-embedding-3-small", input: texts.slice(100) });
  });

  it("embeddings of another size than configured, or of an undocumented shape, are a clear upstream_error", async () => {
    const run = providerRun();
    const wrong = await failure(new OpenAiEmbedder(endpoint(run.base), "wrong-size", 8).embed(["a"]));
    expect(wrong.code).toBe("upstream_error");
    expect(wrong.message).toBe(
      "openai:wrong-size returned 9-dimensional embeddings; RAG_EMBEDDING_DIMENSIONS is 8: set it to the model's size",
    );
    const garbled = await failure(new OpenAiEmbedder(endpoint(run.base), "garbled", 8).embed(["a"]));
    expect(garbled).toMatchObject({
      code: "upstream_error",
      message: "OpenAI-compatible endpoint /embeddings returned an unexpected shape",
    });
  });

  it("rerank: sends query and title-prefixed documents, maps relevance_score back by index", async () => {
    const run = providerRun();
    const scores = await new OpenAiReranker(endpoint(run.base), "rerank-model").rerank("why do cats purr", CANDIDATES, { stats: STATS });
    expect(scores).toHaveLength(2);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    const [request] = await run.requests();
    expect(request).toMatchObject({
      path: "openai/v1/rerank",
      body: { model: "rerank-model", query: "why do cats purr", documents: ["Dogs\nDogs bark at night.", "Cats\nCats purr when content."] },
    });
  });

  it("chat completions: sends the system prompt, the passages and max_tokens; maps content and usage", async () => {
    const run = providerRun();
    const generation = await new OpenAiGenerator(endpoint(run.base), "gpt-test").generate("why do cats purr", PASSAGES, { maxTokens: 64 });
    expect(generation.tokensUsed).toBe(18);
    expect(generation.answer).toMatch(/^You said: Passages:\n\[1\] Cats\nCats purr when content\./);
    const [request] = await run.requests();
    expect(request).toMatchObject({ path: "openai/v1/chat/completions", authorization: "Bearer sk-test" });
    expect(request!.body).toEqual({
      model: "gpt-test",
      max_tokens: 64,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: "Passages:\n[1] Cats\nCats purr when content.\n\nQuestion: why do cats purr" },
      ],
    });
  });

  it("maps a 429 to busy with the provider's retry hint, exhausted quota to unavailable, a 500 and an unreachable endpoint to upstream_error", async () => {
    const run = providerRun();
    const limited = await failure(new OpenAiGenerator(endpoint(run.base), "rate-limited").generate("q", PASSAGES, { maxTokens: 8 }));
    expect(limited).toMatchObject({
      code: "busy",
      message: "OpenAI-compatible endpoint /chat/completions is busy (HTTP 429, rate_limit_exceeded); retry after 1000 ms",
      details: { retry_after_ms: 1000, provider_code: "rate_limit_exceeded" },
    });
    expect(limited.status).toBe(429);
    const quota = await failure(new OpenAiEmbedder(endpoint(run.base), "no-quota", 8).embed(["a"]));
    expect(quota).toMatchObject({
      code: "unavailable",
      message: "OpenAI-compatible endpoint /embeddings: the provider's quota is used up (insufficient_quota)",
    });
    const broken = await failure(new OpenAiReranker(endpoint(run.base), "broken").rerank("q", CANDIDATES, { stats: STATS }));
    expect(broken).toMatchObject({
      code: "upstream_error",
      message: "OpenAI-compatible endpoint /rerank answered HTTP 500 (server_error)",
    });
    const unreachable = await failure(new OpenAiEmbedder({ baseUrl: "http://127.0.0.1:1/v1", apiKey: undefined }, "m", 8).embed(["a"]));
    expect(unreachable).toMatchObject({ code: "upstream_error", message: "OpenAI-compatible endpoint /embeddings is unreachable" });
  });
});

describe("Workers AI adapters (the AI binding, over the documented REST API)", () => {
  it("embeddings: sends { text: [...] } to the model, reads { shape, data }, 768 dimensions, unit vectors", async () => {
    const run = providerRun();
    const vectors = await new WorkersAiEmbedder(restAi(run.base), "@cf/baai/bge-base-en-v1.5", 768).embed(["one", "two"]);
    expect(vectors.map((v) => v.length)).toEqual([768, 768]);
    expect(norm(vectors[0]!)).toBeCloseTo(1, 5);
    const [request] = await run.requests();
    expect(request).toMatchObject({
      method: "POST",
      path: `client/v4/accounts/${ACCOUNT_ID}/ai/run/@cf/baai/bge-base-en-v1.5`,
      authorization: `Bearer ${API_TOKEN}`,
      body: { text: ["one", "two"] },
    });
  });

  it("reranker: sends query, contexts and top_k; maps { response: [{ id, score }] } back by id", async () => {
    const run = providerRun();
    const scores = await new WorkersAiReranker(restAi(run.base), "@cf/baai/bge-reranker-base").rerank("why do cats purr", CANDIDATES, {
      stats: STATS,
    });
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    const [request] = await run.requests();
    expect(request!.body).toEqual({
      query: "why do cats purr",
      contexts: [{ text: "Dogs\nDogs bark at night." }, { text: "Cats\nCats purr when content." }],
      top_k: 2,
    });
  });

  it("text generation: sends messages and max_tokens; maps { response, usage }", async () => {
    const run = providerRun();
    const generation = await new WorkersAiGenerator(restAi(run.base), "@cf/meta/llama-3.1-8b-instruct").generate("why", PASSAGES, {
      maxTokens: 32,
    });
    expect(generation).toEqual({ answer: expect.stringMatching(/^You said: Passages:/), tokensUsed: 18 });
    const [request] = await run.requests();
    expect(request!.body).toMatchObject({ max_tokens: 32, messages: [{ role: "system", content: SYSTEM_PROMPT }, { role: "user" }] });
  });

  it("maps the documented error codes: 3040 busy, 3036 unavailable, 5007 and malformed results upstream_error", async () => {
    const run = providerRun();
    const ai = restAi(run.base);
    const capacity = await failure(new WorkersAiGenerator(ai, "@cf/test/rate-limited").generate("q", PASSAGES, { maxTokens: 8 }));
    expect(capacity).toMatchObject({
      code: "busy",
      message: "Workers AI model @cf/test/rate-limited is busy (HTTP 429, 3040); retry after 1000 ms",
      details: { retry_after_ms: 1000, provider_code: "3040" },
    });
    const allocation = await failure(new WorkersAiEmbedder(ai, "@cf/test/bge-no-quota", 768).embed(["a"]));
    expect(allocation).toMatchObject({
      code: "unavailable",
      message: "Workers AI model @cf/test/bge-no-quota: the provider's quota is used up (3036)",
    });
    const missing = await failure(new WorkersAiGenerator(ai, "@cf/test/missing").generate("q", PASSAGES, { maxTokens: 8 }));
    expect(missing).toMatchObject({ code: "upstream_error", message: "Workers AI model @cf/test/missing answered HTTP 400 (5007)" });
    const garbled = await failure(new WorkersAiReranker(ai, "@cf/test/bge-reranker-garbled").rerank("q", CANDIDATES, { stats: STATS }));
    expect(garbled).toMatchObject({
      code: "upstream_error",
      message: "Workers AI model @cf/test/bge-reranker-garbled returned an unexpected shape",
    });
    const wrongSize = await failure(new WorkersAiEmbedder(ai, "@cf/test/bge-wrong-size", 768).embed(["a"]));
    expect(wrongSize.message).toMatch(/returned 769-dimensional embeddings; RAG_EMBEDDING_DIMENSIONS is 768/);
  });
});

describe("Vectorize index (the VECTORIZE binding, over the documented v2 REST API)", () => {
  const vector = (...values: number[]) => Float32Array.from(values);

  it("upserts NDJSON into the user's namespace, queries only that namespace, deletes by id", async () => {
    const run = providerRun();
    const index = new VectorizeVectorIndex(restVectorize(run.base, "rag"));
    await index.upsert(7, [
      { chunkId: 1, vector: vector(1, 0, 0) },
      { chunkId: 2, vector: vector(0, 1, 0) },
    ]);
    await index.upsert(8, [{ chunkId: 3, vector: vector(1, 0, 0) }]);
    expect(await index.search(7, 0, vector(1, 0.1, 0), 5)).toEqual([
      { chunkId: 1, score: expect.closeTo(0.995, 3) },
      { chunkId: 2, score: expect.closeTo(0.0995, 3) },
    ]);
    expect((await index.search(8, 0, vector(1, 0, 0), 5)).map((h) => h.chunkId)).toEqual([3]);
    await index.remove(7, [1]);
    expect((await index.search(7, 0, vector(1, 0, 0), 5)).map((h) => h.chunkId)).toEqual([2]);

    const requests = await run.requests();
    expect(requests[0]).toMatchObject({
      path: `client/v4/accounts/${ACCOUNT_ID}/vectorize/v2/indexes/rag/upsert`,
      contentType: "application/x-ndjson",
    });
    expect(
      String(requests[0]!.body)
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { id: "7:1", values: [1, 0, 0], namespace: "user-7" },
      { id: "7:2", values: [0, 1, 0], namespace: "user-7" },
    ]);
    expect(requests[2]).toMatchObject({
      path: expect.stringMatching(/\/query$/),
      body: { topK: 5, namespace: "user-7", vector: [1, expect.closeTo(0.1, 5), 0] },
    });
    expect(requests.find((r) => r.path.endsWith("/delete_by_ids"))!.body).toEqual({ ids: ["7:1"] });
  });

  it("turns every failure into upstream_error naming the operation — never an internal error", async () => {
    const run = providerRun();
    const limited = new VectorizeVectorIndex(restVectorize(run.base, "rate-limited"));
    expect(await failure(limited.search(1, 0, vector(1, 0), 5))).toMatchObject({
      code: "upstream_error",
      message: "Vectorize query failed",
    });
    const broken = new VectorizeVectorIndex(restVectorize(run.base, "broken"));
    expect(await failure(broken.upsert(1, [{ chunkId: 1, vector: vector(1, 0) }]))).toMatchObject({
      code: "upstream_error",
      message: "Vectorize upsert failed",
    });
    expect(await failure(broken.remove(1, [1]))).toMatchObject({ code: "upstream_error", message: "Vectorize delete failed" });
    const sized = new VectorizeVectorIndex(restVectorize(run.base, "sized"));
    await sized.upsert(1, [{ chunkId: 1, vector: vector(1, 0, 0) }]);
    expect(await failure(sized.upsert(1, [{ chunkId: 2, vector: vector(1, 0) }]))).toMatchObject({
      code: "upstream_error",
      message: "Vectorize upsert failed",
    });
    const garbled = new VectorizeVectorIndex(restVectorize(run.base, "garbled"));
    expect(await failure(garbled.search(1, 0, vector(1, 0), 5))).toMatchObject({
      code: "upstream_error",
      message: "Vectorize query returned an unexpected shape",
    });
  });
});
