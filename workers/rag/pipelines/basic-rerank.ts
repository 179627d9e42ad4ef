/**
 * rag_basic_rerank: hybrid retrieval, widened by a second pass with pseudo-relevance feedback
 * (the query plus the words that characterise its best three hits, RM3-style, fused by RRF), then
 * the reranker reads each of the first `rerank_depth` candidates in full.
 */
import type { BasicRerankInput } from "../rag.schema";
import { feedbackWords } from "../retrieval/feedback";
import { reciprocalRankFusion, sortedByScore } from "../retrieval/fusion";
import { type Candidate, hybridRetrieve, type RetrievalContext } from "../retrieval/hybrid";
import type { CorpusStats } from "../models/types";
import { type Pipeline, retrievalDepth } from "./pipeline";

/** Reranks the first `depth` candidates; the rest keep their order below every reranked one. */
export async function rerankHead(
  ctx: RetrievalContext,
  query: string,
  candidates: readonly Candidate[],
  depth: number,
  stats: CorpusStats,
): Promise<Candidate[]> {
  const head = candidates.slice(0, depth);
  const [queryVector] = await ctx.models.embedder.embed([query], ctx.signal);
  const scores = await ctx.models.reranker.rerank(
    query,
    head.map((c) => ({ title: c.title, content: c.content, retrievalScore: c.score, vector: ctx.index.vectorOf(ctx.userId, c.chunkId) })),
    { stats, queryVector, signal: ctx.signal },
  );
  const reranked = head.map((c, i) => ({ ...c, score: scores[i]! })).sort((a, b) => b.score - a.score);
  const floor = reranked.length > 0 ? Math.min(...reranked.map((c) => c.score)) : 0;
  const tail = candidates.slice(depth).map((c, i) => ({ ...c, score: floor - 1 - i * 1e-3 }));
  return [...reranked, ...tail];
}

/** Feedback from the best FEEDBACK_DOCS hits, FEEDBACK_WORDS words, second pass weighted FEEDBACK_WEIGHT (fitted on train). */
export const FEEDBACK_DOCS = 3;
export const FEEDBACK_WORDS = 10;
export const FEEDBACK_WEIGHT = 0.5;

export function expandQuery(query: string, top: readonly { title: string; content: string }[], stats: CorpusStats): string {
  return `${query} ${feedbackWords(query, top.slice(0, FEEDBACK_DOCS), stats, FEEDBACK_WORDS).join(" ")}`;
}

export const basicRerankPipeline: Pipeline<BasicRerankInput> = {
  name: "rag_basic_rerank",
  async run(ctx, input) {
    const options = { depth: retrievalDepth(input, input.rerank_depth), fusion: input.fusion_method, vectorWeight: input.vector_weight };
    const first = await hybridRetrieve(ctx, input.query, options);
    const second =
      first.candidates.length > 0 ? await hybridRetrieve(ctx, expandQuery(input.query, first.candidates, first.stats), options) : first;
    const pool = new Map<number, Candidate>();
    for (const c of [...first.candidates, ...second.candidates]) if (!pool.has(c.chunkId)) pool.set(c.chunkId, c);
    const fused = sortedByScore(
      reciprocalRankFusion([
        { items: first.candidates.map((c) => ({ id: c.chunkId, score: c.score })), weight: 1 },
        { items: second.candidates.map((c) => ({ id: c.chunkId, score: c.score })), weight: FEEDBACK_WEIGHT },
      ]),
    ).slice(0, options.depth);
    const widened = fused.map((f) => ({ ...pool.get(f.id)!, score: f.score }));
    const ranked = await rerankHead(ctx, input.query, widened, input.rerank_depth, first.stats);
    return { ranked, candidates: pool.size, metadata: { fusion_method: input.fusion_method } };
  },
};
