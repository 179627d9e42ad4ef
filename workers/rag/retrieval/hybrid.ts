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
import { matchWords } from "../text/tokenize";
import { toMatchExpression } from "./fts";
import { reciprocalRankFusion, type Scored, sortedByScore, weightedFusion } from "./fusion";
import { documentFrequencies, type ResidentTermStats } from "./term-stats";
import type { VectorHit, VectorIndex } from "./vector-index";

export interface RetrievalContext {
  db: Db;
  userId: number;
  models: Models;
  index: VectorIndex;
  /** Where the document frequencies stay resident (the isolate's). */
  termStats: ResidentTermStats;
  signal: AbortSignal;
}

export interface Candidate extends ChunkRecord {
  /** The fused (or pipeline) score; higher is better. */
  score: number;
  /** True for a vector hit whose text was not read yet (see `resolveStubs`). */
  stub?: true;
}

export interface HybridOptions {
  /** How many chunks each retriever returns before fusion. */
  depth: number;
  /**
   * How many of the best fused chunks must come with their text (rerankers read them all);
   * the rest may be stubs that carry only id, document and score. Defaults to `depth`.
   */
  contentDepth?: number;
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
export async function lexicalRetrieve(ctx: RetrievalContext, query: string, depth: number, withText = depth) {
  const queryWords = matchWords(query);
  const expression = toMatchExpression(queryWords);
  const statements: Statement[] = [collectionStatement(ctx.db, ctx.userId)];
  if (expression) statements.push(lexicalStatement(ctx.userId, expression, depth, withText));
  const [collectionRows, lexicalRows] = await batch(ctx.db, statements);
  const collection = toCollection(collectionRows);
  const hits = (lexicalRows ?? []).map((row) => ({
    chunkId: Number(row["chunk_id"]),
    docId: String(row["doc_id"]),
    score: Number(row["score"]),
    record: row["content"] === null ? undefined : toChunkRecord(row),
  }));
  return { collection, hits };
}

export async function corpusStats(ctx: RetrievalContext, collection: CollectionState): Promise<CorpusStats> {
  return {
    chunkCount: collection.chunkCount,
    averageLength: collection.chunkCount > 0 ? collection.tokenCount / collection.chunkCount : 1,
    documentFrequency: await documentFrequencies(ctx.termStats, ctx.db, ctx.userId, collection.version),
  };
}

export async function vectorRetrieve(ctx: RetrievalContext, query: string, version: number, depth: number): Promise<VectorHit[]> {
  if (depth === 0) return [];
  const [vector] = await ctx.models.embedder.embed([query], ctx.signal);
  return ctx.index.search(ctx.userId, version, vector!, depth);
}

/** Reads the text of stub candidates (one batch when there are any), in place of the stubs. */
export async function resolveStubs(ctx: RetrievalContext, candidates: readonly Candidate[]): Promise<Candidate[]> {
  const stubs = candidates.filter((c) => c.stub).map((c) => c.chunkId);
  if (stubs.length === 0) return [...candidates];
  const records = new Map((await fetchChunks(ctx.db, ctx.userId, stubs)).map((r) => [r.chunkId, r]));
  return candidates.flatMap((c) => {
    if (!c.stub) return [c];
    const record = records.get(c.chunkId);
    return record ? [{ ...record, score: c.score }] : [];
  });
}

/** Chunk records for ids, reusing those already read. */
export async function resolveChunks(
  ctx: RetrievalContext,
  ids: readonly number[],
  known: ReadonlyMap<number, ChunkRecord>,
): Promise<Map<number, ChunkRecord>> {
  const missing = ids.filter((id) => !known.has(id));
  const fetched = await fetchChunks(ctx.db, ctx.userId, missing);
  const all = new Map(known);
  for (const record of fetched) all.set(record.chunkId, record);
  return all;
}

export function fuse(
  lexical: readonly Scored[],
  vector: readonly Scored[],
  options: Pick<HybridOptions, "fusion" | "vectorWeight">,
): Scored[] {
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
  const contentDepth = options.contentDepth ?? options.depth;
  // Lexical hits past twice the needed depth come without text; fusion rarely lifts them that far.
  const lexical = await lexicalRetrieve(ctx, query, options.depth, Math.min(options.depth, contentDepth * 2));
  const hits = options.vectorWeight > 0 ? await vectorRetrieve(ctx, query, lexical.collection.version, options.depth) : [];
  const vector = hits.map((h) => ({ id: h.chunkId, score: h.score }));
  const lexicalScores = lexical.hits.map((h) => ({ id: h.chunkId, score: h.score }));
  const fused = fuse(lexicalScores, vector, options).slice(0, options.depth);
  const known = new Map(lexical.hits.flatMap((h) => (h.record ? [[h.chunkId, h.record] as const] : [])));
  const hitDocs = new Map([
    ...lexical.hits.map((h) => [h.chunkId, h.docId] as const),
    ...hits.flatMap((h) => (h.docId === undefined ? [] : [[h.chunkId, h.docId] as const])),
  ]);
  // Text is read only where it is needed; a hit whose document is known can wait as a stub.
  const needed = fused.filter((f, rank) => !known.has(f.id) && (rank < contentDepth || !hitDocs.has(f.id))).map((f) => f.id);
  const records = await resolveChunks(ctx, needed, known);
  const candidates: Candidate[] = fused.flatMap((f) => {
    const record = records.get(f.id);
    if (record) return [{ ...record, score: f.score }];
    const docId = hitDocs.get(f.id);
    return docId === undefined
      ? []
      : [{ chunkId: f.id, docId, title: "", content: "", source: "", metadata: {}, score: f.score, stub: true as const }];
  });
  return {
    candidates,
    lexical: lexicalScores,
    vector,
    stats: await corpusStats(ctx, lexical.collection),
    collection: lexical.collection,
  };
}
