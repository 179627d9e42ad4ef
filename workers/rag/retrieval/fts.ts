/**
 * Free text → an FTS5 query: each content word quoted (never parsed as an operator) and OR-ed.
 * Words go in unstemmed — FTS5's porter tokenizer stems them as it stemmed the index, and Porter is
 * not idempotent, so a pre-stemmed term could miss ("agreed" → "agre" → "agr").
 */
import { stem } from "../text/porter";
import { isStopword, words } from "../text/tokenize";

/** Content words of a query, one per stem; every word when all of them are stopwords. */
export function matchWords(query: string): string[] {
  const all = words(query);
  const content = all.filter((w) => !isStopword(w));
  const chosen = new Map<string, string>();
  for (const word of content.length > 0 ? content : all) if (!chosen.has(stem(word))) chosen.set(stem(word), word);
  return [...chosen.values()];
}

/** `"word1" OR "word2"`; undefined when there is nothing to search for. */
export function toMatchExpression(queryWords: readonly string[]): string | undefined {
  if (queryWords.length === 0) return undefined;
  return queryWords.map((w) => `"${w.replace(/"/g, '""')}"`).join(" OR ");
}
