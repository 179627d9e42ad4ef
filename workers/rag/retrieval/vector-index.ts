/**
 * Where chunk vectors live and how they are searched. Two implementations: the default D1-backed
 * exact index (vectors stored in rag_chunks, searched in isolate memory) and Cloudflare Vectorize.
 */
export interface VectorHit {
  chunkId: number;
  score: number;
  /** The chunk's document id, when the index knows it without a D1 read. */
  docId?: string;
}

export interface StoredVector {
  chunkId: number;
  vector: Float32Array;
}

export interface VectorIndex {
  readonly name: string;
  /** True when vectors are stored in rag_chunks.vector by the ingest batch itself. */
  readonly storesInD1: boolean;
  /** Best `limit` chunks by cosine similarity; `version` is the collection version the caller read. */
  search(userId: number, version: number, vector: Float32Array, limit: number): Promise<VectorHit[]>;
  /** After the chunks are committed to D1 (no-op for the D1 index). */
  upsert(userId: number, vectors: readonly StoredVector[]): Promise<void>;
  remove(userId: number, chunkIds: readonly number[]): Promise<void>;
  /** A chunk's stored vector when it is at hand without I/O (the resident D1 index), else undefined. */
  vectorOf(userId: number, chunkId: number): Float32Array | undefined;
}

/** Unit vector → int8 (×127) → base64: a quarter of float32's size, ample precision for ranking. */
export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length);
  for (let i = 0; i < vector.length; i++) bytes[i] = Math.max(-127, Math.min(127, Math.round(vector[i]! * 127))) & 0xff;
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Decodes into `target` at `offset`, renormalised to unit length. */
export function decodeVectorInto(encoded: string, target: Float32Array, offset: number, dimensions: number): void {
  const binary = atob(encoded);
  if (binary.length !== dimensions) throw new Error(`stored vector has ${binary.length} dimensions, expected ${dimensions}`);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const value = (binary.charCodeAt(i) << 24) >> 24;
    target[offset + i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dimensions; i++) target[offset + i]! *= scale;
}

/** Keeps the `limit` best rows (index into `ids`, score) seen, without sorting everything. */
export function topRows(scores: Float32Array, limit: number): { row: number; score: number }[] {
  const hits: { row: number; score: number }[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i]!;
    if (hits.length >= limit && score <= floor) continue;
    hits.push({ row: i, score });
    if (hits.length > limit * 2) {
      hits.sort((a, b) => b.score - a.score);
      hits.length = limit;
      floor = hits[limit - 1]!.score;
    }
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
