/**
 * The three model roles of a RAG pipeline, behind interfaces so the local defaults, Workers AI and
 * any OpenAI-compatible endpoint are interchangeable. `name` is reported in every response.
 */
export interface Embedder {
  /** e.g. `local:hashed-ngram-512`, `workers-ai:@cf/baai/bge-base-en-v1.5` */
  readonly name: string;
  readonly dimensions: number;
  /** Unit-length vectors, one per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface RerankCandidate {
  title: string;
  content: string;
  /** The first-stage score (fused retrieval); a reranker may use it as one signal. */
  retrievalScore: number;
  /** The chunk's stored embedding, when the index has it at hand. */
  vector?: Float32Array | undefined;
}

export interface Reranker {
  readonly name: string;
  /**
   * A relevance score per candidate, in order; higher is better. `stats` describes the collection
   * (a lexical scorer needs term statistics; a neural one ignores them).
   */
  rerank(
    query: string,
    candidates: readonly RerankCandidate[],
    options: { stats: CorpusStats; queryVector?: Float32Array | undefined; signal?: AbortSignal },
  ): Promise<number[]>;
}

export interface GenerationPassage {
  /** 1-based citation number, as the answer cites it: [1], [2]… */
  citation: number;
  title: string;
  content: string;
}

export interface Generation {
  answer: string;
  tokensUsed: number;
}

export interface Generator {
  readonly name: string;
  generate(
    query: string,
    passages: readonly GenerationPassage[],
    options: { maxTokens: number; signal?: AbortSignal },
  ): Promise<Generation>;
}

/** What the lexical scorers need to know about the collection (BM25's N, avgdl, df). */
export interface CorpusStats {
  chunkCount: number;
  averageLength: number;
  /** Chunks containing each (stemmed) term. */
  documentFrequency: ReadonlyMap<string, number>;
}

export function idf(stats: CorpusStats, term: string): number {
  // Terms missing from the statistics occur in at most one chunk (see retrieval/term-stats.ts).
  const df = stats.documentFrequency.get(term) ?? 1;
  const n = Math.max(stats.chunkCount, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}
