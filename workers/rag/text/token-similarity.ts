/**
 * Token-level similarity for late interaction: a token's vector is the set of its hashed character
 * trigrams (with word boundaries), and two tokens' similarity is the cosine of those sets — 1 for
 * the same stem, high for word-form variants ("inflammatory"/"inflammation"), near 0 otherwise.
 */
import { fnv1a } from "./hash";
import { stem } from "./porter";
import { isStopword, words } from "./tokenize";

const TOKEN_CACHE_LIMIT = 100_000;
const tokenCache = new Map<string, Uint32Array>();

/** A token's vector: its sorted, de-duplicated hashed character trigrams. */
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

/** The distinct content words of a text: the "document tokens" MaxSim runs over. */
export function contentTokens(text: string): string[] {
  return [...new Set(words(text).filter((w) => !isStopword(w)))];
}

export interface MaxSimResult {
  /** idf-weighted mean over query tokens of their best match, 0–1. */
  score: number;
  /** Query tokens whose best match reached the threshold. */
  interactions: number;
}

/**
 * MaxSim: each query token's best similarity to any document token; matches below `threshold`
 * count as 0. `cache` (query token → document token → similarity) memoises pairs across the
 * candidates of one query.
 */
export function maxSim(
  queryTokens: readonly string[],
  weights: readonly number[],
  docTokens: readonly string[],
  threshold: number,
  cache: Map<string, Map<string, number>>,
): MaxSimResult {
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  // Most query tokens occur as such: a stem lookup settles them without any similarity.
  const docStems = new Set(docTokens.map(stem));
  let score = 0;
  let interactions = 0;
  queryTokens.forEach((q, qi) => {
    let best = docStems.has(stem(q)) ? 1 : 0;
    let row = cache.get(q);
    if (!row) cache.set(q, (row = new Map()));
    for (let i = 0; i < docTokens.length && best < 1; i++) {
      const d = docTokens[i]!;
      let sim = row.get(d);
      if (sim === undefined) row.set(d, (sim = tokenSimilarity(q, d)));
      if (sim > best) best = sim;
    }
    if (best >= threshold) {
      interactions++;
      score += weights[qi]! * best;
    }
  });
  return { score: score / total, interactions };
}
