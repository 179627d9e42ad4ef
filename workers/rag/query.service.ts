/**
 * Runs one RAG query end to end, the same way for every pipeline: a slot from the concurrency gate,
 * a deadline, the pipeline's ranking, one entry per document, the generated answer, timings, and a
 * row in the query log (written off the response path). Knows nothing of MCP or HTTP.
 */
import { type Db } from "../lib/db";
import { AppError, toAppError } from "../lib/errors";
import { log } from "../lib/log";
import type { QueryGate } from "./gate";
import type { Models } from "./models/registry";
import type { GenerationPassage } from "./models/types";
import type { Pipeline } from "./pipelines/pipeline";
import { appendQueryLog } from "./query-log.repo";
import type { RagConfig } from "./rag.config";
import type { CommonInput, QueryResult, RetrievedDocument } from "./rag.schema";
import { type Candidate, type RetrievalContext, resolveStubs } from "./retrieval/hybrid";
import { ResidentTermStats } from "./retrieval/term-stats";
import type { VectorIndex } from "./retrieval/vector-index";

/** The answer is generated from at most this many of the top documents. */
const MAX_GENERATION_PASSAGES = 5;

export interface QueryDeps {
  db: Db;
  config: RagConfig;
  models: () => Models;
  index: () => VectorIndex;
  gate: QueryGate;
  waitUntil: (promise: Promise<unknown>) => void;
  /** The isolate's resident term statistics; a query run without them (a test) loads its own. */
  termStats?: ResidentTermStats | undefined;
}

/** Each document once, at its best chunk, best first. */
export function bestPerDocument(ranked: readonly Candidate[]): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of [...ranked].sort((a, b) => b.score - a.score)) {
    if (seen.has(c.docId)) continue;
    seen.add(c.docId);
    out.push(c);
  }
  return out;
}

function round(ms: number): number {
  return Math.max(0, Math.round(ms * 100) / 100);
}

function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number, pipeline: string, outer?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const timeout = new AppError("timeout", `${pipeline} did not finish within its ${timeoutMs} ms timeout`, {
    details: { timeout_ms: timeoutMs },
  });
  const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
  const onOuterAbort = () => controller.abort(new AppError("timeout", `${pipeline} was cancelled by the client`));
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(toAppError(controller.signal.reason)), { once: true });
  });
  return Promise.race([work(controller.signal), aborted]).finally(() => {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  });
}

export async function runQuery<I extends CommonInput>(
  deps: QueryDeps,
  userId: number,
  pipeline: Pipeline<I>,
  input: I,
  cancel?: AbortSignal,
): Promise<QueryResult> {
  const requestId = input.request_id ?? crypto.randomUUID();
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const timeoutMs = input.timeout_ms ?? deps.config.queryTimeoutMs;
  let retrievalMs = 0;
  let generationMs = 0;
  let tokensUsed = 0;
  const record = (outcome: "ok" | "error" | "busy" | "timeout", errorCode: string | null) => {
    const entry = {
      requestId,
      userId,
      pipeline: pipeline.name,
      startedAt,
      outcome,
      errorCode,
      totalMs: Math.round(performance.now() - started),
      retrievalMs: Math.round(retrievalMs),
      generationMs: Math.round(generationMs),
      tokensUsed,
    };
    const retainSince = new Date(Date.now() - deps.config.logRetentionDays * 86_400_000).toISOString();
    deps.waitUntil(
      appendQueryLog(deps.db, entry, retainSince).catch((error: unknown) => log.error("rag query log failed", { cause: String(error) })),
    );
  };

  let lease;
  try {
    lease = await deps.gate.acquire(pipeline.name, userId, requestId, timeoutMs);
  } catch (error) {
    const appError = toAppError(error);
    record(appError.code === "busy" ? "busy" : "error", appError.code);
    throw appError;
  }
  try {
    const result = await withDeadline(
      async (signal) => {
        const models = deps.models();
        const index = deps.index();
        const termStats = deps.termStats ?? new ResidentTermStats();
        const ctx: RetrievalContext = { db: deps.db, userId, models, index, termStats, signal };
        const outcome = await pipeline.run(ctx, input);
        retrievalMs = performance.now() - started;
        const documents = bestPerDocument(outcome.ranked);
        const top = await resolveStubs(ctx, documents.slice(0, input.top_k));
        const passages: GenerationPassage[] =
          outcome.passages ??
          top.slice(0, MAX_GENERATION_PASSAGES).map((d, i) => ({ citation: i + 1, title: d.title, content: d.content }));
        const generationStarted = performance.now();
        const generation = await models.generator.generate(input.query, passages, { maxTokens: input.max_tokens, signal });
        generationMs = performance.now() - generationStarted;
        tokensUsed = generation.tokensUsed;
        const retrieved: RetrievedDocument[] = top.map((d) => ({
          doc_id: d.docId,
          title: d.title,
          content: d.content,
          score: d.score,
          source: d.source,
          ...(input.include_metadata ? { metadata: d.metadata } : {}),
        }));
        const executionMs = round(performance.now() - started);
        const result: QueryResult = {
          answer: generation.answer,
          retrieved_documents: retrieved,
          sources: input.include_sources ? [...new Set(top.map((d) => d.source || d.docId))] : [],
          metadata: {
            pipeline_name: pipeline.name,
            execution_time_ms: executionMs,
            tokens_used: tokensUsed,
            embedder: models.embedder.name,
            reranker: models.reranker.name,
            generator: models.generator.name,
            vector_index: index.name,
            candidates: outcome.candidates,
            ...outcome.metadata,
          },
          performance_metrics: {
            execution_time_ms: executionMs,
            retrieval_time_ms: round(retrievalMs),
            generation_time_ms: round(generationMs),
            tokens_used: tokensUsed,
          },
          response_id: requestId,
          ...(input.ranking_depth > 0
            ? { ranking: documents.slice(0, input.ranking_depth).map((d) => ({ doc_id: d.docId, score: d.score })) }
            : {}),
        };
        return result;
      },
      timeoutMs,
      pipeline.name,
      cancel,
    );
    record("ok", null);
    return result;
  } catch (error) {
    const appError = toAppError(error);
    record(appError.code === "timeout" ? "timeout" : "error", appError.code);
    throw appError;
  } finally {
    deps.waitUntil(lease.release().catch((error: unknown) => log.error("rag gate release failed", { cause: String(error) })));
  }
}
