/**
 * Pseudo-relevance feedback (RM3-style): words that characterise the best candidates, weighted by
 * each candidate's share and the word's rarity. Returned as surface words so FTS5 stems them itself.
 */
import { type CorpusStats, idf } from "../models/types";
import { stem } from "../text/porter";
import { isStopword, words } from "../text/tokenize";

const MAX_DF_SHARE = 0.2;

export function feedbackWords(
  query: string,
  top: readonly { title: string; content: string }[],
  stats: CorpusStats,
  count: number,
): string[] {
  const queryStems = new Set(words(query).map(stem));
  const weights = new Map<string, number>();
  const surface = new Map<string, string>();
  top.forEach((doc, rank) => {
    const all = words(`${doc.title} ${doc.content}`);
    const prior = 1 / (rank + 1);
    for (const word of all) {
      if (isStopword(word) || word.length < 3 || /^\d+$/.test(word)) continue;
      const s = stem(word);
      if (queryStems.has(s)) continue;
      if (!surface.has(s)) surface.set(s, word);
      weights.set(s, (weights.get(s) ?? 0) + prior / all.length);
    }
  });
  return [...weights]
    .filter(([s]) => (stats.documentFrequency.get(s) ?? 0) <= stats.chunkCount * MAX_DF_SHARE)
    .map(([s, w]) => [s, w * Math.log(1 + stats.chunkCount / (1 + (stats.documentFrequency.get(s) ?? 0)))] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([s]) => surface.get(s)!);
}

/** idf-weighted share of the query's content stems found in a text, 0–1. */
export function coverage(queryStems: readonly string[], text: string, stats: CorpusStats): number {
  const present = new Set(words(text).map(stem));
  let total = 0;
  let covered = 0;
  for (const s of queryStems) {
    const w = idf(stats, s);
    total += w;
    if (present.has(s)) covered += w;
  }
  return total > 0 ? covered / total : 0;
}
