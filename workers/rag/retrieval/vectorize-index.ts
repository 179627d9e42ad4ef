/**
 * Cloudflare Vectorize as the vector index (when the VECTORIZE binding is configured). Each user's
 * vectors live in their own namespace, so a query can never match another user's chunks.
 */
import { AppError } from "../../lib/errors";
import type { StoredVector, VectorHit, VectorIndex } from "./vector-index";

/** Vectorize's topK ceiling when values and metadata are not returned. */
const MAX_TOP_K = 100;
const UPSERT_BATCH = 500;

export class VectorizeVectorIndex implements VectorIndex {
  readonly name = "vectorize";
  readonly storesInD1 = false;

  constructor(private readonly index: Vectorize) {}

  private namespace(userId: number): string {
    return `user-${userId}`;
  }

  async search(userId: number, _version: number, vector: Float32Array, limit: number): Promise<VectorHit[]> {
    try {
      const result = await this.index.query(vector, { topK: Math.min(limit, MAX_TOP_K), namespace: this.namespace(userId) });
      return result.matches.map((m) => ({ chunkId: Number(m.id.split(":")[1]), score: m.score })).filter((h) => Number.isInteger(h.chunkId));
    } catch (error) {
      throw new AppError("upstream_error", "Vectorize query failed", { cause: error });
    }
  }

  async upsert(userId: number, vectors: readonly StoredVector[]): Promise<void> {
    for (let i = 0; i < vectors.length; i += UPSERT_BATCH) {
      const slice = vectors.slice(i, i + UPSERT_BATCH).map((v) => ({
        id: `${userId}:${v.chunkId}`,
        values: v.vector,
        namespace: this.namespace(userId),
      }));
      await this.index.upsert(slice);
    }
  }

  vectorOf(): undefined {
    return undefined;
  }

  async remove(userId: number, chunkIds: readonly number[]): Promise<void> {
    for (let i = 0; i < chunkIds.length; i += UPSERT_BATCH) {
      await this.index.deleteByIds(chunkIds.slice(i, i + UPSERT_BATCH).map((id) => `${userId}:${id}`));
    }
  }
}
