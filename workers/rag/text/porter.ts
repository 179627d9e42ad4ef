/**
 * The Porter (1980) stemmer, as SQLite's FTS5 `porter` tokenizer applies it, so terms we score in
 * the isolate (reranking, late interaction, entity matching) agree with the terms FTS5 indexed.
 * The algorithm is the `stemmer` package's: on all 30,557 distinct words of the SciFact corpus it
 * stems exactly as FTS5 does (decision record "libraries instead of hand-written code").
 */
import { stemmer } from "stemmer";

const cache = new Map<string, string>();
const CACHE_LIMIT = 200_000;

/** Stems one lower-case token. Tokens of 2 letters or fewer, and tokens with digits, are kept. */
export function stem(token: string): string {
  if (token.length <= 2 || /[^a-z]/.test(token)) return token;
  const hit = cache.get(token);
  if (hit !== undefined) return hit;
  const result = stemmer(token);
  if (cache.size < CACHE_LIMIT) cache.set(token, result);
  return result;
}
