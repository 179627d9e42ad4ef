/**
 * The local embedder: hashed sub-word vectors. Each content word (stemmed) and each character
 * 3–5-gram of it is hashed, with a hash-derived sign, into a fixed number of dimensions, weighted
 * by 1 + ln(tf); the vector is L2-normalised. No weights, no network, deterministic: the same text
 * always gets the same vector, in the Worker and in Node. Character n-grams let "inhibitor" and
 * "inhibition", or "IL-6" and "IL6", meet where whole words would not.
 */
import { fnv1a } from "../text/hash";
import { stem } from "../text/porter";
import { isStopword, words } from "../text/tokenize";
import type { Embedder } from "./types";

export const HASHED_DIMENSIONS = 512;
const NGRAM_SIZES = [3, 4, 5] as const;
/** A whole word is worth this many n-grams: exact matches should dominate partial ones. */
const NGRAM_WEIGHT = 0.5;

/** Feature → count, for one text. */
export function hashedFeatures(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of words(text)) {
    if (isStopword(word)) continue;
    const key = `w:${stem(word)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const padded = `<${word}>`;
    for (const n of NGRAM_SIZES) {
      for (let i = 0; i + n <= padded.length; i++) {
        const gram = `c:${padded.slice(i, i + n)}`;
        counts.set(gram, (counts.get(gram) ?? 0) + NGRAM_WEIGHT);
      }
    }
  }
  return counts;
}

export function hashedVector(text: string, dimensions = HASHED_DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const [feature, count] of hashedFeatures(text)) {
    const h = fnv1a(feature);
    const sign = (h & 1) === 1 ? 1 : -1;
    vector[(h >>> 1) % dimensions]! += sign * (1 + Math.log(count));
  }
  return normalize(vector);
}

export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

export class HashedEmbedder implements Embedder {
  readonly name = `local:hashed-ngram-${HASHED_DIMENSIONS}`;
  readonly dimensions = HASHED_DIMENSIONS;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => hashedVector(text, this.dimensions));
  }
}
