/**
 * Text analysis shared by every local model: the same tokens FTS5's `unicode61` tokenizer makes
 * (letters and digits, lower-cased, diacritics removed), Porter-stemmed like FTS5's `porter`.
 */
import { stem } from "./porter";
import { STOPWORDS } from "./stopwords";

const TOKEN = /[\p{L}\p{N}]+/gu;

/** Lower-cased unicode61-style tokens, diacritics removed. */
export function words(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(TOKEN) ?? []
  );
}

/** Stemmed tokens, stopwords kept (documents). */
export function terms(text: string): string[] {
  return words(text).map(stem);
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** Stemmed tokens without stopwords, de-duplicated in first-seen order (queries). */
export function queryTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const word of words(text)) {
    if (STOPWORDS.has(word)) continue;
    seen.add(stem(word));
  }
  return [...seen];
}

/**
 * Content words of a query, one per stem; every word when all of them are stopwords. Unstemmed:
 * FTS5 stems them itself (retrieval/fts.ts), and the local models stem what they compare.
 */
export function matchWords(query: string): string[] {
  const all = words(query);
  const content = all.filter((w) => !isStopword(w));
  const chosen = new Map<string, string>();
  for (const word of content.length > 0 ? content : all) if (!chosen.has(stem(word))) chosen.set(stem(word), word);
  return [...chosen.values()];
}

/** A rough count of model tokens (≈ 0.75 words each), for budgets and `tokens_used`. */
export function estimateTokens(text: string): number {
  const n = words(text).length;
  return n === 0 ? 0 : Math.ceil(n * 1.3);
}
