/** rag_basic_rerank: hybrid retrieval to `rerank_depth`, then the reranker reads each candidate in full. */
import type { BasicRerankInput } from "../rag.schema";
import { type Candidate, hybridRetrieve, type RetrievalContext } from "../retrieval/hybrid";
import type { CorpusStats } from "../models/types";
import { type Pipeline, retrievalDepth } from "./pipeline";

/** Reranks the first `depth` candidates; the rest keep their order below every reranked one. */
export async function rerankHead(ctx: RetrievalContext, query: string, candidates: readonly Candidate[], depth: number, stats: CorpusStats): Promise<Candidate[]> {
  const head = candidates.slice(0, depth);
  const scores = await ctx.models.reranker.rerank(
    query,
    head.map((c) => ({ title: c.title, content: c.content, retrievalScore: c.score })),
    { stats, signal: ctx.signal },
  );
  const reranked = head.map((c, i) => ({ ...c, score: scores[i]! })).sort((a, b) => b.score - a.score);
  const floor = reranked.length > 0 ? Math.min(...reranked.map((c) => c.score)) : 0;
  const tail = candidates.slice(depth).map((c, i) => ({ ...c, score: floor - 1 - i * 1e-3 }));
  return [...reranked, ...tail];
}

export const basicRerankPipeline: Pipeline<BasicRerankInput> = {
  name: "rag_basic_rerank",
  async run(ctx, input) {
    const result = await hybridRetrieve(ctx, input.query, {
      depth: retrievalDepth(input, input.rerank_depth),
      fusion: input.fusion_method,
      vectorWeight: input.vector_weight,
    });
    const ranked = await rerankHead(ctx, input.query, result.candidates, input.rerank_depth, result.stats);
    return { ranked, candidates: result.candidates.length, metadata: { fusion_method: input.fusion_method } };
  },
};
