/** What a pipeline is: a retrieval strategy that ranks chunks; the query service does the rest. */
import type { GenerationPassage } from "../models/types";
import type { PipelineName, QueryMetadata } from "../rag.schema";
import type { Candidate, RetrievalContext } from "../retrieval/hybrid";

export interface PipelineOutcome {
  /** Chunks, best first; the service keeps each document's best one. */
  ranked: Candidate[];
  /** Chunks the pipeline considered. */
  candidates: number;
  /** Pipeline-specific metadata (correction, interactions, graph depth…). */
  metadata: Partial<QueryMetadata>;
  /** Passages to answer from instead of the top documents (community summaries). */
  passages?: GenerationPassage[];
}

export interface Pipeline<I> {
  name: PipelineName;
  run(ctx: RetrievalContext, input: I): Promise<PipelineOutcome>;
}

/** Chunks to retrieve so that `documents` distinct documents survive grouping. */
export function retrievalDepth(input: { top_k: number; ranking_depth: number }, floor = 100): number {
  return Math.min(1000, Math.max(floor, input.top_k * 3, Math.ceil(input.ranking_depth * 1.5)));
}
