/**
 * Cloudflare Vectorize as the vector index (when the VECTORIZE binding is configured). Each user's
 * vectors live in their own namespace, so a query can never match another user's chunks. Every
 * failure of the binding — which throws plain errors (`VECTOR_QUERY_ERROR (code = …): …`) — and
 * every answer of an unexpected shape becomes an `upstream_error` AppError naming the operation.
 */
import * as z from "zod";
import { AppError } from "../../lib/errors";
import type { StoredVector, VectorHit, VectorIndex } from "./vector-index";

/** Vectorize's topK ceiling when values and metadata are not returned. */
const MAX_TOP_K = 100;
/** Vectors per upsert call (the binding's limit is 1,000; 500 keeps a request small). */
const UPSERT_BATCH = 500;
/** Ids per deleteByIds call. */
const DELETE_BATCH = 500;

/** The three operations the index uses; the binding (`Vectorize`) has them. */
export type VectorizeOperations = Pick<Vectorize, "query" | "upsert" | "deleteByIds">;

const queryResult = z.object({ matches: z.array(z.object({ id: z.string(), score: z.number() })) });

async function attempt<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new AppError("upstream_error", `Vectorize ${operation} failed`, { cause: error });
  }
}

export class VectorizeVectorIndex implements VectorIndex {
  readonly name = "vectorize";
  readonly storesInD1 = false;

  constructor(private readonly index: VectorizeOperations) {}

  private namespace(userId: number): string {
    return `user-${userId}`;
  }

  async search(userId: number, _version: number, vector: Float32Array, limit: number): Promise<VectorHit[]> {
    const raw = await attempt("query", () =>
      this.index.query(vector, { topK: Math.min(limit, MAX_TOP_K), namespace: this.namespace(userId) }),
    );
    const parsed = queryResult.safeParse(raw);
    if (!parsed.success) throw new AppError("upstream_error", "Vectorize query returned an unexpected shape", { cause: parsed.error });
    const prefix = `${userId}:`;
    return parsed.data.matches
      .filter((m) => m.id.startsWith(prefix))
      .map((m) => ({ chunkId: Number(m.id.slice(prefix.length)), score: m.score }))
      .filter((h) => Number.isSafeInteger(h.chunkId));
  }

  async upsert(userId: number, vectors: readonly StoredVector[]): Promise<void> {
    for (let i = 0; i < vectors.length; i += UPSERT_BATCH) {
      const slice = vectors.slice(i, i + UPSERT_BATCH).map((v) => ({
        id: `${userId}:${v.chunkId}`,
        values: v.vector,
        namespace: this.namespace(userId),
      }));
      await attempt("upsert", () => this.index.upsert(slice));
    }
  }

  vectorOf(): undefined {
    return undefined;
  }

  async remove(userId: number, chunkIds: readonly number[]): Promise<void> {
    for (let i = 0; i < chunkIds.length; i += DELETE_BATCH) {
      const ids = chunkIds.slice(i, i + DELETE_BATCH).map((id) => `${userId}:${id}`);
      await attempt("delete", () => this.index.deleteByIds(ids));
    }
  }
}
