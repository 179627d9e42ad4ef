/**
 * Hybrid first-stage retrieval shared by the pipelines: FTS5/BM25 candidates and the collection
 * version in one D1 batch; term statistics from the resident table (term-stats.ts); the query vector searched in the vector index; the two
 * rankings fused; texts of vector-only chunks fetched in a second batch only when they are needed.
 */
import { batch, type Db, type Statement } from "../../lib/db";
import type { Models } from "../models/registry";
import type { CorpusStats } from "../models/types";
import {
  type ChunkRecord,
  type CollectionState,
  collectionStatement,
  fetchChunks,
  lexicalStatement,
  toChunkRecord,
  toCollection,
} from "../rag.repo";
import { matchWords, toMatchExpression } from "./fts";
import { reciprocalRankFusion, type Scored, sortedByScore, weightedFusion } from "./fusion";
import { documentFrequencies } from "./term-stats";
import type { VectorIndex } from "./vector-index";

export interface RetrievalContext {
  db: Db;
  userId: number;
  models: Models;
  index: VectorIndex;
  signal: AbortSignal;
}

export interface Candidate extends ChunkRecord {
  /** The fused (or pipeline) score; higher is better. */
  score: number;
}

export interface HybridOptions {
  /** How many chunks each retriever returns before fusion. */
  depth: number;
  fusion: "weighted" | "rrf";
  vectorWeight: number;
}

export interface HybridResult {
  candidates: Candidate[];
  lexical: Scored[];
  vector: Scored[];
  stats: CorpusStats;
  collection: CollectionState;
}

/** FTS5 candidates and the collection version (and counts), in one batch. */
export async function lexicalRetrieve(ctx: RetrievalContext, query: string, depth: number) {
  const queryWords = matchWords(query);
  const expression = toMatchExpression(queryWords);
  const statements: Statement[] = [collectionStatement(ctx.db, ctx.userId)];
  if (expression) statements.push(lexicalStatement(ctx.userId, expression, depth));
  const [collectionRows, lexicalRows] = await batch(ctx.db, statements);
  const collection = toCollection(collectionRows);
  const records = (lexicalRows ?? []).map((row) => ({ ...toChunkRecord(row), score: Number(row["score"]) }));
  return { collection, records };
}

export async function corpusStats(ctx: RetrievalContext, collection: CollectionState): Promise<CorpusStats> {
  return {
    chunkCount: collection.chunkCount,
    averageLength: collection.chunkCount > 0 ? collection.tokenCount / collection.chunkCount : 1,
    documentFrequency: await documentFrequencies(ctx.db, ctx.userId, collection.version),
  };
}

export async function vectorRetrieve(ctx: RetrievalContext, query: string, version: number, depth: number): Promise<Scored[]> {
  if (depth === 0) return [];
  const [vector] = await ctx.models.embedder.embed([query], ctx.signal);
  const hits = await ctx.index.search(ctx.userId, version, vector!, depth);
  return hits.map((h) => ({ id: h.chunkId, score: h.score }));
}

/** Chunk records for ids, reusing those already read. */
export async function resolveChunks(ctx: RetrievalContext, ids: readonly number[], known: ReadonlyMap<number, ChunkRecord>): Promise<Map<number, ChunkRecord>> {
  const missing = ids.filter((id) => !known.has(id));
  const fetched = await fetchChunks(ctx.db, ctx.userId, missing);
  const all = new Map(known);
  for (const record of fetched) all.set(record.chunkId, record);
  return all;
}

export function fuse(lexical: readonly Scored[], vector: readonly Scored[], options: Pick<HybridOptions, "fusion" | "vectorWeight">): Scored[] {
  const fused =
    options.fusion === "rrf"
      ? reciprocalRankFusion([
          { items: lexical, weight: 1 - options.vectorWeight },
          { items: vector, weight: options.vectorWeight },
        ])
      : weightedFusion(lexical, vector, options.vectorWeight);
  return sortedByScore(fused);
}

export async function hybridRetrieve(ctx: RetrievalContext, query: string, options: HybridOptions): Promise<HybridResult> {
  const lexical = await lexicalRetrieve(ctx, query, options.depth);
  const vector = options.vectorWeight > 0 ? await vectorRetrieve(ctx, query, lexical.collection.version, options.depth) : [];
  const lexicalScores = lexical.records.map((r) => ({ id: r.chunkId, score: r.score }));
  const fused = fuse(lexicalScores, vector, options).slice(0, options.depth);
  const known = new Map(lexical.records.map((r) => [r.chunkId, r as ChunkRecord]));
  const records = await resolveChunks(ctx, fused.map((f) => f.id), known);
  const candidates = fused.flatMap((f) => {
    const record = records.get(f.id);
    return record ? [{ ...record, score: f.score }] : [];
  });
  return {
    candidates,
    lexical: lexicalScores,
    vector,
    stats: await corpusStats(ctx, lexical.collection),
    collection: lexical.collection,
  };
}
