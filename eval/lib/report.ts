/** Rewrites the results table of docs/retrieval.md between its markers, beside the published BM25 figures. */

/** One pipeline's row, as eval/scifact.ts measures it. */
export interface PipelineResult {
  pipeline: string;
  ndcg_at_10: number;
  recall_at_100: number;
  p50_ms: number;
  p95_ms: number;
}

export const BEGIN = "<!-- scifact-results:begin -->";
export const END = "<!-- scifact-results:end -->";

export function resultsTable(results: readonly PipelineResult[], corpus: { documents: number; chunks: number }): string {
  const rows = results.map(
    (r) => `| \`${r.pipeline}\` | ${r.ndcg_at_10.toFixed(4)} | ${r.recall_at_100.toFixed(4)} | ${r.p50_ms} | ${r.p95_ms} |`,
  );
  return [
    BEGIN,
    `SciFact **test** split (300 queries), ${corpus.documents} documents in ${corpus.chunks} chunks, local defaults, written by \`npm run eval:scifact\`.`,
    "",
    "| pipeline | nDCG@10 | Recall@100 | p50 ms | p95 ms |",
    "|---|---|---|---|---|",
    ...rows,
    "| BM25, BEIR paper (Thakur et al. 2021) | 0.665 | — | — | — |",
    "| BM25 flat, Anserini (title+text) | 0.6789 | 0.9253 | — | — |",
    END,
  ].join("\n");
}

export function writeResultsTable(doc: string, results: readonly PipelineResult[], corpus: { documents: number; chunks: number }): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/retrieval.md has no ${BEGIN} … ${END} block`);
  return doc.slice(0, start) + resultsTable(results, corpus) + doc.slice(end + END.length);
}
