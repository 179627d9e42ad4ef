/**
 * Splits a document into chunks of about `size` words on sentence boundaries, consecutive chunks
 * sharing about `overlap` words, so a fact that straddles a boundary is whole in one of them.
 * A single sentence longer than `size` is cut on word boundaries.
 */
export interface ChunkOptions {
  size: number;
  overlap: number;
}

/** Sentence ends: . ! ? followed by space and something that starts a sentence; or blank lines. */
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}("[])|\n\s*\n/u;

export function sentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function splitLong(sentence: string, size: number): string[] {
  const parts = sentence.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += size) out.push(parts.slice(i, i + size).join(" "));
  return out;
}

export function chunkText(text: string, { size, overlap }: ChunkOptions): string[] {
  const units = sentences(text).flatMap((s) => (wordCount(s) > size ? splitLong(s, size) : [s]));
  const chunks: string[] = [];
  let current: string[] = [];
  let words = 0;
  for (const unit of units) {
    const n = wordCount(unit);
    if (words + n > size && current.length > 0) {
      chunks.push(current.join(" "));
      // Carry trailing sentences into the next chunk until the overlap is covered.
      const carried: string[] = [];
      let carriedWords = 0;
      for (let i = current.length - 1; i >= 0 && carriedWords < overlap; i--) {
        const w = wordCount(current[i]!);
        if (carriedWords + w > overlap && carried.length > 0) break;
        if (w > overlap * 2 || w + n > size) break;
        carried.unshift(current[i]!);
        carriedWords += w;
      }
      current = carried;
      words = carriedWords;
    }
    current.push(unit);
    words += n;
  }
  if (current.length > 0) chunks.push(current.join(" "));
  return chunks;
}
