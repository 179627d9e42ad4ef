/** Combining rankings: reciprocal rank fusion and weighted fusion of normalised scores. */

export interface Scored {
  id: number;
  score: number;
}

/** The k of RRF (Cormack et al. 2009): damps the head so no single list dominates. */
export const RRF_K = 60;

/** Σ weight / (k + rank) over the lists that rank an id (ranks from 1). */
export function reciprocalRankFusion(lists: readonly { items: readonly Scored[]; weight: number }[], k = RRF_K): Map<number, number> {
  const fused = new Map<number, number>();
  for (const { items, weight } of lists) {
    const ranked = [...items].sort((a, b) => b.score - a.score);
    ranked.forEach((item, rank) => fused.set(item.id, (fused.get(item.id) ?? 0) + weight / (k + rank + 1)));
  }
  return fused;
}

/** Scores scaled to [0, 1] by the list's own min and max (a single item scores 1). */
export function minMaxNormalize(items: readonly Scored[]): Map<number, number> {
  const out = new Map<number, number>();
  if (items.length === 0) return out;
  const scores = items.map((i) => i.score);
  const [min, max] = [Math.min(...scores), Math.max(...scores)];
  for (const item of items) out.set(item.id, max > min ? (item.score - min) / (max - min) : 1);
  return out;
}

/** (1 − w)·lexical + w·vector over normalised scores; an id missing from a list scores 0 there. */
export function weightedFusion(lexical: readonly Scored[], vector: readonly Scored[], vectorWeight: number): Map<number, number> {
  const lex = minMaxNormalize(lexical);
  const vec = minMaxNormalize(vector);
  const fused = new Map<number, number>();
  for (const id of new Set([...lex.keys(), ...vec.keys()])) {
    fused.set(id, (1 - vectorWeight) * (lex.get(id) ?? 0) + vectorWeight * (vec.get(id) ?? 0));
  }
  return fused;
}

export function sortedByScore(scores: ReadonlyMap<number, number>): Scored[] {
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
