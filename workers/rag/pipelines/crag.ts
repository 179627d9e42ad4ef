/**
 * rag_crag — corrective RAG. After hybrid retrieval, confidence is the idf-weighted share of the
 * query's terms that the best of the top three chunks contains (how much of the question the
 * evidence speaks to). Below `confidence_threshold` the correction strategy produces new queries,
 * each is retrieved, and their rankings are fused with the original one (RRF), which keeps what the
 * first retrieval got right.
 */
import type { CorpusStats } from "../models/types";
import type { CragInput } from "../rag.schema";
import { coverage, feedbackWords } from "../retrieval/feedback";
import { reciprocalRankFusion, sortedByScore } from "../retrieval/fusion";
import { type Candidate, hybridRetrieve } from "../retrieval/hybrid";
import { stem } from "../text/porter";
import { matchWords, queryTerms } from "../text/tokenize";
import { idf } from "../models/types";
import { type Pipeline, retrievalDepth } from "./pipeline";

const CONFIDENCE_DOCS = 3;
const EXPANSION_WORDS = 8;
const REWRITE_MAX_WORDS = 6;
/** The corrected rankings together weigh this much against the original's 1 (fitted on train). */
const CORRECTION_WEIGHT = 0.5;

export function confidenceOf(query: string, top: readonly Candidate[], stats: CorpusStats): number {
  const stems = queryTerms(query);
  const scores = top.slice(0, CONFIDENCE_DOCS).map((c) => coverage(stems, `${c.title} ${c.content}`, stats));
  return Math.round(Math.max(0, ...scores) * 1000) / 1000;
}

/** The query's rarest content words: what a search engine needs, without the phrasing. */
export function rewriteQuery(query: string, stats: CorpusStats): string {
  const chosen = matchWords(query)
    .map((word) => ({ word, weight: idf(stats, stem(word)) }))
    .sort((a, b) => b.weight - a.weight)
    .slice(0, REWRITE_MAX_WORDS)
    .map((w) => w.word);
  return chosen.join(" ");
}

/** Clauses of the question as sub-questions; a single clause is split into two halves of its content words. */
export function decomposeQuery(query: string): string[] {
  const clauses = query
    .split(/[,;:]|\b(?:and|but|while|whereas|because|although|which|that|versus|vs)\b/i)
    .map((c) => c.trim())
    .filter((c) => matchWords(c).length >= 2);
  if (clauses.length >= 2) return clauses.slice(0, 4);
  const content = matchWords(query);
  if (content.length < 4) return [query];
  const half = Math.ceil(content.length / 2);
  return [content.slice(0, half).join(" "), content.slice(half).join(" ")];
}

export const cragPipeline: Pipeline<CragInput> = {
  name: "rag_crag",
  async run(ctx, input) {
    const options = { depth: retrievalDepth(input), fusion: input.fusion_method, vectorWeight: input.vector_weight };
    const first = await hybridRetrieve(ctx, input.query, options);
    const confidence = confidenceOf(input.query, first.candidates, first.stats);
    const base = { fusion_method: input.fusion_method, confidence_score: confidence, correction_strategy: input.correction_strategy };
    if (confidence >= input.confidence_threshold || first.candidates.length === 0) {
      return { ranked: first.candidates, candidates: first.candidates.length, metadata: { ...base, correction_applied: false } };
    }
    const queries =
      input.correction_strategy === "rewrite"
        ? [rewriteQuery(input.query, first.stats)]
        : input.correction_strategy === "decompose"
          ? decomposeQuery(input.query)
          : [
              `${input.query} ${feedbackWords(input.query, first.candidates.slice(0, CONFIDENCE_DOCS), first.stats, EXPANSION_WORDS).join(" ")}`,
            ];
    const corrected = await Promise.all(queries.map((q) => hybridRetrieve(ctx, q, options)));
    const pool = new Map<number, Candidate>();
    for (const result of [first, ...corrected]) for (const c of result.candidates) if (!pool.has(c.chunkId)) pool.set(c.chunkId, c);
    const fused = sortedByScore(
      reciprocalRankFusion([
        { items: first.candidates.map((c) => ({ id: c.chunkId, score: c.score })), weight: 1 },
        ...corrected.map((r) => ({
          items: r.candidates.map((c) => ({ id: c.chunkId, score: c.score })),
          weight: CORRECTION_WEIGHT / corrected.length,
        })),
      ]),
    );
    const ranked = fused.map((f) => ({ ...pool.get(f.id)!, score: f.score }));
    return {
      ranked,
      candidates: pool.size,
      metadata: { ...base, correction_applied: true, corrected_queries: queries },
    };
  },
};
