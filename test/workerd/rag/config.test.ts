/** Which backend serves each model role, from the Worker's vars and bindings; and the refusals when one is missing. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../../workers/lib/errors";
import { createModels } from "../../../workers/rag/models/registry";
import { readRagConfig } from "../../../workers/rag/rag.config";

describe("RAG configuration", () => {
  it("defaults to the local models, a 30 s timeout, 5 queries per pipeline and 7 days of log", () => {
    const config = readRagConfig(env);
    expect(config).toMatchObject({
      embedder: "local",
      reranker: "local",
      generator: "local",
      queryTimeoutMs: 30_000,
      maxConcurrentQueries: 5,
      logRetentionDays: 7,
    });
    const models = createModels(config, undefined);
    expect([models.embedder.name, models.reranker.name, models.generator.name]).toEqual([
      "local:hashed-ngram-512",
      "local:lexical-cross-scorer",
      "local:extractive",
    ]);
  });

  it("auto picks the OpenAI-compatible endpoint when a base URL is set", () => {
    const config = readRagConfig({ ...env, RAG_OPENAI_BASE_URL: "https://llm.example/v1", RAG_GENERATION_MODEL: "my-model" });
    expect(config).toMatchObject({ embedder: "openai", reranker: "openai", generator: "openai" });
    const models = createModels(config, undefined);
    expect(models.generator.name).toBe("openai:my-model");
    expect(models.embedder.name).toBe("openai:text-embedding-3-small");
  });

  it("lets each role be chosen on its own, and caps the timeout at 60 s", () => {
    const config = readRagConfig({
      ...env,
      RAG_GENERATOR: "openai",
      RAG_OPENAI_BASE_URL: "https://llm.example/v1",
      RAG_EMBEDDER: "local",
      RAG_RERANKER: "local",
      RAG_QUERY_TIMEOUT_MS: "90000",
    });
    expect(config).toMatchObject({ embedder: "local", reranker: "local", generator: "openai", queryTimeoutMs: 30_000 });
    expect(readRagConfig({ ...env, RAG_QUERY_TIMEOUT_MS: "45000" }).queryTimeoutMs).toBe(45_000);
  });

  it("keeps one user below the pipeline limit: RAG_MAX_CONCURRENT_QUERIES_PER_USER defaults to it minus one and is capped there", () => {
    const perUser = (vars: Partial<Env>) => readRagConfig({ ...env, ...vars }).maxConcurrentQueriesPerUser;
    expect(perUser({})).toBe(4);
    expect(perUser({ RAG_MAX_CONCURRENT_QUERIES_PER_USER: "2" })).toBe(2);
    expect(perUser({ RAG_MAX_CONCURRENT_QUERIES_PER_USER: "5" })).toBe(4);
    expect(perUser({ RAG_MAX_CONCURRENT_QUERIES: "10", RAG_MAX_CONCURRENT_QUERIES_PER_USER: "" })).toBe(9);
    expect(perUser({ RAG_MAX_CONCURRENT_QUERIES_PER_USER: "0" })).toBe(4);
    expect(perUser({ RAG_MAX_CONCURRENT_QUERIES_PER_USER: "two" })).toBe(4);
    // One slot in all: it cannot be shared, so it goes to whoever asks first.
    expect(perUser({ RAG_MAX_CONCURRENT_QUERIES: "1" })).toBe(1);
  });

  it("refuses clearly when a role asks for a backend that is not configured", () => {
    const config = readRagConfig({ ...env, RAG_GENERATOR: "workers-ai" });
    expect(() => createModels(config, undefined)).toThrow(AppError);
    expect(() => createModels(config, undefined)).toThrow("RAG generator is set to workers-ai but the AI binding is not configured");
    expect(() => createModels(readRagConfig({ ...env, RAG_EMBEDDER: "openai" }), undefined)).toThrow(/RAG_OPENAI_BASE_URL is empty/);
  });
});
