/**
 * The RAG server's configuration, read once per request from the Worker's vars (wrangler.toml)
 * and secrets. Invalid values fall back to the documented defaults rather than failing requests.
 */
import { perUserLimit } from "./fair-share";
import { DEFAULT_GATE_SHARDS, MAX_GATE_SHARDS } from "./gate-shards";
import { MAX_TIMEOUT_MS } from "./rag.schema";

export type Backend = "local" | "workers-ai" | "openai";

export interface RagConfig {
  embedder: Backend;
  reranker: Backend;
  generator: Backend;
  openAi: { baseUrl: string; apiKey: string | undefined };
  models: { embedding: string; embeddingDimensions: number; rerank: string; generation: string };
  queryTimeoutMs: number;
  /** Queries of one pipeline running at once in one gate shard (the pipeline's bound is gateShards × this). */
  maxConcurrentQueries: number;
  /** At most maxConcurrentQueries − 1 (when that is ≥ 2): one user never holds every slot (fair-share.ts). */
  maxConcurrentQueriesPerUser: number;
  /** RagGate objects per pipeline, users spread over them by id (gate-shards.ts). */
  gateShards: number;
  logRetentionDays: number;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONCURRENT_QUERIES = 5;
export const DEFAULT_LOG_RETENTION_DAYS = 7;

const DEFAULT_MODELS: Record<Exclude<Backend, "local">, RagConfig["models"]> = {
  "workers-ai": {
    embedding: "@cf/baai/bge-base-en-v1.5",
    embeddingDimensions: 768,
    rerank: "@cf/baai/bge-reranker-base",
    generation: "@cf/meta/llama-3.1-8b-instruct",
  },
  openai: { embedding: "text-embedding-3-small", embeddingDimensions: 1536, rerank: "rerank", generation: "gpt-4o-mini" },
};

function intVar(value: string | undefined, fallback: number, min: number, max: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

/** An integer var within [min, max], or undefined when unset or invalid (the caller's default applies). */
function optionalIntVar(value: string | undefined, min: number, max: number): number | undefined {
  const n = intVar(value, Number.NaN, min, max);
  return Number.isNaN(n) ? undefined : n;
}

/** "auto" picks OpenAI-compatible when a base URL is set, else Workers AI when bound, else local. */
function backend(value: string | undefined, env: Env): Backend {
  if (value === "local" || value === "workers-ai" || value === "openai") return value;
  if ((env.RAG_OPENAI_BASE_URL ?? "").trim() !== "") return "openai";
  return env.AI ? "workers-ai" : "local";
}

/** A remote backend's default model names (a local role has none; Workers AI's stand in, unused). */
function defaultsFor(b: Backend): RagConfig["models"] {
  return b === "local" ? DEFAULT_MODELS["workers-ai"] : DEFAULT_MODELS[b];
}

function pick(value: string | undefined, fallback: string): string {
  return value && value.trim() !== "" ? value.trim() : fallback;
}

export function readRagConfig(env: Env): RagConfig {
  const embedder = backend(env.RAG_EMBEDDER, env);
  const reranker = backend(env.RAG_RERANKER, env);
  const generator = backend(env.RAG_GENERATOR, env);
  const remote = defaultsFor(embedder);
  const maxConcurrentQueries = intVar(env.RAG_MAX_CONCURRENT_QUERIES, DEFAULT_MAX_CONCURRENT_QUERIES, 1, 100);
  return {
    embedder,
    reranker,
    generator,
    openAi: { baseUrl: (env.RAG_OPENAI_BASE_URL ?? "").trim(), apiKey: env.RAG_OPENAI_API_KEY },
    models: {
      embedding: pick(env.RAG_EMBEDDING_MODEL, remote.embedding),
      embeddingDimensions: intVar(env.RAG_EMBEDDING_DIMENSIONS, remote.embeddingDimensions, 1, 8192),
      rerank: pick(env.RAG_RERANK_MODEL, defaultsFor(reranker).rerank),
      generation: pick(env.RAG_GENERATION_MODEL, defaultsFor(generator).generation),
    },
    queryTimeoutMs: intVar(env.RAG_QUERY_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS, 100, MAX_TIMEOUT_MS),
    maxConcurrentQueries,
    maxConcurrentQueriesPerUser: perUserLimit(maxConcurrentQueries, optionalIntVar(env.RAG_MAX_CONCURRENT_QUERIES_PER_USER, 1, 100)),
    gateShards: intVar(env.RAG_GATE_SHARDS, DEFAULT_GATE_SHARDS, 1, MAX_GATE_SHARDS),
    logRetentionDays: intVar(env.RAG_LOG_RETENTION_DAYS, DEFAULT_LOG_RETENTION_DAYS, 1, 365),
  };
}
