/**
 * rag_colbert — late interaction in the manner of ColBERT, with local token vectors
 * (text/token-similarity.ts: hashed character trigrams, cosine; 1 for the same stem). A candidate's score is the idf-weighted mean over query tokens of the best
 * similarity to any of its tokens (MaxSim); similarities below `interaction_threshold` count as 0.
 * The MaxSim score is blended with the first-stage score, as rerankers over a first stage are.
 */
import { idf } from "../models/types";
import type { ColbertInput } from "../rag.schema";
import { matchWords } from "../text/tokenize";
import { minMaxNormalize } from "../retrieval/fusion";
import { hybridRetrieve } from "../retrieval/hybrid";
import { stem } from "../text/porter";
import { contentTokens, maxSim } from "../text/token-similarity";
import { type Pipeline, retrievalDepth } from "./pipeline";

/** Share of the MaxSim score in the final one (fitted on SciFact train). */
const INTERACTION_WEIGHT = 0.5;

export const colbertPipeline: Pipeline<ColbertInput> = {
  name: "rag_colbert",
  async run(ctx, input) {
    const first = await hybridRetrieve(ctx, input.query, {
      depth: retrievalDepth(input, input.candidate_depth),
      fusion: input.fusion_method,
      vectorWeight: input.vector_weight,
    });
    const queryTokens = matchWords(input.query);
    const weights = queryTokens.map((t) => idf(first.stats, stem(t)));
    const pairCache = new Map<string, Map<string, number>>();
    let interactions = 0;
    const head = first.candidates.slice(0, input.candidate_depth);
    const late = minMaxNormalize(
      head.map((candidate) => {
        const result = maxSim(
          queryTokens,
          weights,
          contentTokens(`${candidate.title} ${candidate.content}`),
          input.interaction_threshold,
          pairCache,
        );
        interactions += result.interactions;
        return { id: candidate.chunkId, score: result.score };
      }),
    );
    const early = minMaxNormalize(head.map((c) => ({ id: c.chunkId, score: c.score })));
    const ranked = head
      .map((c) => ({
        ...c,
        score: INTERACTION_WEIGHT * (late.get(c.chunkId) ?? 0) + (1 - INTERACTION_WEIGHT) * (early.get(c.chunkId) ?? 0),
      }))
      .sort((a, b) => b.score - a.score);
    const floor = ranked.length > 0 ? ranked[ranked.length - 1]!.score : 0;
    const tail = first.candidates.slice(input.candidate_depth).map((c, i) => ({ ...c, score: floor - 1 - i * 1e-3 }));
    return {
      ranked: [...ranked, ...tail],
      candidates: first.candidates.length,
      metadata: { fusion_method: input.fusion_method, token_interactions: interactions },
    };
  },
};
