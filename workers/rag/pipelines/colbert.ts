/**
 * rag_colbert — late interaction in the manner of ColBERT, with local token vectors: each token is
 * the set of its hashed character trigrams, and two tokens' similarity is the cosine of those sets
 * (1 for the same stem). A candidate's score is the idf-weighted mean over query tokens of the best
 * similarity to any of its tokens (MaxSim); similarities below `interaction_threshold` count as 0.
 * The MaxSim score is blended with the first-stage score, as rerankers over a first stage are.
 */
import { idf } from "../models/types";
import type { ColbertInput } from "../rag.schema";
import { matchWords } from "../retrieval/fts";
import { minMaxNormalize } from "../retrieval/fusion";
import { hybridRetrieve } from "../retrieval/hybrid";
import { fnv1a } from "../text/hash";
import { stem } from "../text/porter";
import { isStopword, words } from "../text/tokenize";
import { type Pipeline, retrievalDepth } from "./pipeline";

/** Share of the MaxSim score in the final one (fitted on SciFact train). */
const INTERACTION_WEIGHT = 0.5;
const TOKEN_CACHE_LIMIT = 100_000;
const tokenCache = new Map<string, Uint32Array>();

/** A token's vector: its sorted, de-duplicated hashed character trigrams (with word boundaries). */
export function tokenVector(word: string): Uint32Array {
  const hit = tokenCache.get(word);
  if (hit) return hit;
  const padded = `<${word}>`;
  const grams = new Set<number>();
  for (let i = 0; i + 3 <= padded.length; i++) grams.add(fnv1a(padded.slice(i, i + 3)));
  const vector = Uint32Array.from([...grams].sort((a, b) => a - b));
  if (tokenCache.size < TOKEN_CACHE_LIMIT) tokenCache.set(word, vector);
  return vector;
}

export function tokenSimilarity(a: string, b: string): number {
  if (a === b || stem(a) === stem(b)) return 1;
  const [x, y] = [tokenVector(a), tokenVector(b)];
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      shared++;
      i++;
      j++;
    } else if (x[i]! < y[j]!) i++;
    else j++;
  }
  return x.length && y.length ? shared / Math.sqrt(x.length * y.length) : 0;
}

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
    const totalWeight = weights.reduce((a, b) => a + b, 0) || 1;
    const pairCache = new Map<string, number>();
    let interactions = 0;
    const head = first.candidates.slice(0, input.candidate_depth);
    const maxSim = head.map((candidate) => {
      const docTokens = [...new Set(words(`${candidate.title} ${candidate.content}`).filter((w) => !isStopword(w)))];
      let score = 0;
      queryTokens.forEach((q, qi) => {
        let best = 0;
        for (const d of docTokens) {
          const key = `${q}\u0000${d}`;
          let sim = pairCache.get(key);
          if (sim === undefined) pairCache.set(key, (sim = tokenSimilarity(q, d)));
          if (sim > best) best = sim;
          if (best === 1) break;
        }
        if (best >= input.interaction_threshold) {
          interactions++;
          score += weights[qi]! * best;
        }
      });
      return { id: candidate.chunkId, score: score / totalWeight };
    });
    const late = minMaxNormalize(maxSim);
    const early = minMaxNormalize(head.map((c) => ({ id: c.chunkId, score: c.score })));
    const ranked = head
      .map((c) => ({ ...c, score: INTERACTION_WEIGHT * (late.get(c.chunkId) ?? 0) + (1 - INTERACTION_WEIGHT) * (early.get(c.chunkId) ?? 0) }))
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
