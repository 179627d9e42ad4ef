/**
 * Free text → an FTS5 query: each content word quoted (never parsed as an operator) and OR-ed.
 * Words go in unstemmed — FTS5's porter tokenizer stems them as it stemmed the index, and Porter is
 * not idempotent, so a pre-stemmed term could miss ("agreed" → "agre" → "agr").
 * The words come from text/tokenize.ts#matchWords.
 */

/** `"word1" OR "word2"`; undefined when there is nothing to search for. */
export function toMatchExpression(queryWords: readonly string[]): string | undefined {
  if (queryWords.length === 0) return undefined;
  return queryWords.map((w) => `"${w.replace(/"/g, '""')}"`).join(" OR ");
}
