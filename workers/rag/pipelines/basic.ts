/** rag_basic: hybrid retrieval — FTS5/BM25 and vector search, fused. */
import type { BasicInput } from "../rag.schema";
import { hybridRetrieve } from "../retrieval/hybrid";
import { type Pipeline, retrievalDepth } from "./pipeline";

export const basicPipeline: Pipeline<BasicInput> = {
  name: "rag_basic",
  async run(ctx, input) {
    const result = await hybridRetrieve(ctx, input.query, {
      depth: retrievalDepth(input),
      // Only the answer's documents need text; vector-only hits further down stay stubs.
      contentDepth: input.top_k * 2,
      fusion: input.fusion_method,
      vectorWeight: input.vector_weight,
    });
    return { ranked: result.candidates, candidates: result.candidates.length, metadata: { fusion_method: input.fusion_method } };
  },
};
