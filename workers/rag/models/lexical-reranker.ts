/**
 * The local reranker: a lexical cross-scorer. It reads the query and every candidate in full and
 * scores them with a linear model over features a cross-encoder would also see — BM25 with the
 * title counted extra, weighted query coverage, coverage in the title, query bigrams found in
 * order, term proximity, the best single sentence, pseudo-relevance feedback from the strongest
 * candidates (RM3-style), and the first-stage score. Features are max-normalised per query, so
 * the weights (fitted on the SciFact *train* split by eval/tune-scifact.ts) carry across queries.
 */
import { sentences } from "../text/chunk";
import { stem } from "../text/porter";
import { contentTokens, maxSim } from "../text/token-similarity";
import { matchWords, queryTerms, terms } from "../text/tokenize";
import { hashedVector } from "./hashed-embedder";
import { type CorpusStats, idf, type RerankCandidate, type Reranker } from "./types";

export const FEATURES = [
  "bm25",
  "coverage",
  "title_coverage",
  "bigrams",
  "proximity",
  "retrieval",
  "sentence_coverage",
  "sentence_bm25",
  "feedback",
  "vector_cosine",
  "late_interaction",
] as const;

/** Fitted on SciFact train (eval/tune-scifact.ts); order as FEATURES. */
export const DEFAULT_WEIGHTS: readonly number[] = [0.3, -0.4, 0.05, -0.1, 0, 0.3, 0.5, 0.1, 0.65, 0.35, 0.2];

/** Feature-extraction settings; the tuner varies them, the Worker uses the defaults. */
export interface FeatureParams {
  k1: number;
  b: number;
  /** A title occurrence counts this many body occurrences. */
  titleBoost: number;
  feedbackDocs: number;
  feedbackTerms: number;
}

export const DEFAULT_PARAMS: FeatureParams = { k1: 1.2, b: 0.75, titleBoost: 3, feedbackDocs: 5, feedbackTerms: 20 };
/** Expansion terms must be rarer than this share of chunks: common words carry no topic. */
const FEEDBACK_MAX_DF_SHARE = 0.2;
const LATE_INTERACTION_THRESHOLD = 0.5;

interface Analysed {
  title: string[];
  body: string[];
  sentences: string[][];
  tf: Map<string, number>;
  length: number;
}

function analyse(candidate: RerankCandidate, titleBoost: number): Analysed {
  const title = terms(candidate.title);
  const body = terms(candidate.content);
  const tf = new Map<string, number>();
  for (const t of title) tf.set(t, (tf.get(t) ?? 0) + titleBoost);
  for (const t of body) tf.set(t, (tf.get(t) ?? 0) + 1);
  const parts = [title, ...sentences(candidate.content).map(terms)].filter((s) => s.length > 0);
  return { title, body, sentences: parts, tf, length: title.length + body.length };
}

function bm25(
  weights: ReadonlyMap<string, number>,
  tf: ReadonlyMap<string, number>,
  length: number,
  avg: number,
  p: FeatureParams = DEFAULT_PARAMS,
): number {
  let score = 0;
  for (const [term, weight] of weights) {
    const f = tf.get(term) ?? 0;
    if (f > 0) score += (weight * f * (p.k1 + 1)) / (f + p.k1 * (1 - p.b + (p.b * length) / avg));
  }
  return score;
}

function bigramHits(query: readonly string[], doc: Analysed): number {
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < query.length; i++) pairs.add(`${query[i]} ${query[i + 1]}`);
  let hits = 0;
  for (const seq of [doc.title, doc.body]) {
    for (let i = 0; i + 1 < seq.length; i++) if (pairs.has(`${seq[i]} ${seq[i + 1]}`)) hits++;
  }
  return hits;
}

/** Sum of 1/gap between consecutive occurrences of different query terms. */
function proximity(query: ReadonlySet<string>, doc: Analysed): number {
  let score = 0;
  let lastTerm: string | undefined;
  let lastPos = -1;
  doc.body.forEach((term, pos) => {
    if (!query.has(term)) return;
    if (lastTerm !== undefined && lastTerm !== term) score += 1 / (pos - lastPos);
    lastTerm = term;
    lastPos = pos;
  });
  return score;
}

function sentenceScores(weights: ReadonlyMap<string, number>, total: number, doc: Analysed): [number, number] {
  let coverage = 0;
  let best = 0;
  for (const sentence of doc.sentences) {
    const tf = new Map<string, number>();
    for (const t of sentence) tf.set(t, (tf.get(t) ?? 0) + 1);
    let covered = 0;
    for (const [term, weight] of weights) if (tf.has(term)) covered += weight;
    coverage = Math.max(coverage, covered);
    best = Math.max(best, bm25(weights, tf, sentence.length, 25));
  }
  return [total > 0 ? coverage / total : 0, best];
}

/** RM3-style expansion terms from the top candidates by BM25, weighted by their share. */
function feedbackTerms(
  query: ReadonlySet<string>,
  docs: readonly Analysed[],
  bm: readonly number[],
  stats: CorpusStats,
  p: FeatureParams,
): Map<string, number> {
  const top = bm
    .map((score, i) => ({ score, i }))
    .sort((a, b) => b.score - a.score)
    .slice(0, p.feedbackDocs);
  const best = top[0]?.score ?? 0;
  const weights = new Map<string, number>();
  for (const { score, i } of top) {
    const doc = docs[i]!;
    const prior = Math.exp(score - best);
    const all = [...doc.title, ...doc.body];
    for (const term of all) {
      if (query.has(term) || term.length < 3 || /^\d+$/.test(term)) continue;
      if ((stats.documentFrequency.get(term) ?? 0) > stats.chunkCount * FEEDBACK_MAX_DF_SHARE) continue;
      weights.set(term, (weights.get(term) ?? 0) + prior / all.length);
    }
  }
  const chosen = [...weights].sort((a, b) => b[1] - a[1]).slice(0, p.feedbackTerms);
  return new Map(chosen.map(([term, w]) => [term, w * idf(stats, term)]));
}

/** Raw (un-normalised) feature rows, one per candidate, in FEATURES order. */
export function featureRows(
  query: string,
  candidates: readonly RerankCandidate[],
  stats: CorpusStats,
  queryVector?: Float32Array,
  params: FeatureParams = DEFAULT_PARAMS,
): number[][] {
  const qTerms = queryTerms(query);
  const weights = new Map(qTerms.map((t) => [t, idf(stats, t)]));
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  const querySet = new Set(qTerms);
  const avg = Math.max(1, stats.averageLength);
  const docs = candidates.map((c) => analyse(c, params.titleBoost));
  const bm = docs.map((doc) => bm25(weights, doc.tf, doc.length, avg, params));
  const feedback = feedbackTerms(querySet, docs, bm, stats, params);
  let ownQueryVector: Float32Array | undefined;
  const queryTokens = matchWords(query);
  const tokenWeights = queryTokens.map((t) => idf(stats, stem(t)));
  const pairs = new Map<string, Map<string, number>>();
  return docs.map((doc, i) => {
    const text = `${candidates[i]!.title}\n${candidates[i]!.content}`;
    // The stored vector when the index has it (same hashed embedder locally); else computed here.
    const stored = candidates[i]!.vector;
    const [qv, dv] =
      stored && queryVector && stored.length === queryVector.length
        ? [queryVector, stored]
        : [(ownQueryVector ??= hashedVector(query)), hashedVector(text)];
    let cosine = 0;
    for (let j = 0; j < dv.length; j++) cosine += qv[j]! * dv[j]!;
    let covered = 0;
    let titleCovered = 0;
    const titleSet = new Set(doc.title);
    for (const [term, weight] of weights) {
      if (doc.tf.has(term)) covered += weight;
      if (titleSet.has(term)) titleCovered += weight;
    }
    const [sentenceCoverage, sentenceBm25] = sentenceScores(weights, total, doc);
    return [
      bm[i]!,
      total > 0 ? covered / total : 0,
      total > 0 ? titleCovered / total : 0,
      Math.log1p(bigramHits(qTerms, doc)),
      Math.log1p(proximity(querySet, doc)),
      candidates[i]!.retrievalScore,
      sentenceCoverage,
      sentenceBm25,
      bm25(feedback, doc.tf, doc.length, avg, params),
      cosine,
      maxSim(queryTokens, tokenWeights, contentTokens(text), LATE_INTERACTION_THRESHOLD, pairs).score,
    ];
  });
}

/** Max-normalises each feature over the candidates, then takes the weighted sum. */
export function linearScores(rows: readonly number[][], weights: readonly number[]): number[] {
  const scale = weights.map((_, j) => Math.max(1e-9, ...rows.map((row) => Math.abs(row[j]!))));
  return rows.map((row) => row.reduce((sum, value, j) => sum + ((weights[j] ?? 0) * value) / scale[j]!, 0));
}

export class LexicalReranker implements Reranker {
  readonly name = "local:lexical-cross-scorer";

  constructor(private readonly weights: readonly number[] = DEFAULT_WEIGHTS) {}

  async rerank(
    query: string,
    candidates: readonly RerankCandidate[],
    options: { stats: CorpusStats; queryVector?: Float32Array | undefined },
  ): Promise<number[]> {
    if (candidates.length === 0) return [];
    return linearScores(featureRows(query, candidates, options.stats, options.queryVector), this.weights);
  }
}
