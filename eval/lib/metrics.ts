/** Retrieval metrics as BEIR computes them with trec_eval: linear gains, log2 discounts. */
import type { Qrels } from "../../bin/lib/beir";

export function ndcgAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((docId, i) => {
    const gain = judged.get(docId) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...judged].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranking.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Mean nDCG@10 and Recall@100 over the judged queries that have a ranking. */
export function score(rankings: ReadonlyMap<string, readonly string[]>, qrels: Qrels): { ndcg10: number; recall100: number } {
  const ndcg: number[] = [];
  const recall: number[] = [];
  for (const [queryId, judged] of qrels) {
    const ranking = rankings.get(queryId) ?? [];
    ndcg.push(ndcgAt(ranking, judged, 10));
    recall.push(recallAt(ranking, judged, 100));
  }
  return { ndcg10: mean(ndcg), recall100: mean(recall) };
}
