/**
 * The default vector index: exact cosine search over every chunk vector of a user, held in isolate
 * memory. Vectors are the source of truth in D1 (rag_chunks.vector); the first query of a user in
 * an isolate loads them (in pages, once), and a query that reads a newer collection version than
 * the one loaded reloads them — so ingest and delete, in any isolate, invalidate it. A query then
 * costs no D1 read for vectors at all, which a per-query scan of D1 could never match.
 */
import { BoundedCache } from "../../lib/bounded-cache";
import type { Db } from "../../lib/db";
import { vectorPage } from "../rag.repo";
import { decodeVectorInto, type StoredVector, topRows, type VectorHit, type VectorIndex } from "./vector-index";

interface Resident {
  version: number;
  embedder: string;
  ids: Int32Array;
  /** Each chunk's document id, so fusion can group by document without reading D1. */
  docIds: string[];
  /** chunk id → row of `matrix` */
  rows: Map<number, number>;
  matrix: Float32Array;
}

const PAGE_SIZE = 2000;
/** Users' indexes kept per isolate; the least recently loaded is dropped beyond this. */
const MAX_RESIDENT_USERS = 8;

/** Users' resident indexes, kept across requests (the isolate's: workers/isolate-state.ts). */
export class ResidentVectors {
  readonly resident = new BoundedCache<number, Resident>({ maxEntries: MAX_RESIDENT_USERS });
  /** One load per user at a time: concurrent queries share it. */
  readonly loading = new Map<number, Promise<Resident>>();

  /** For tests and diagnostics: which version of a user's index is held. */
  versionOf(userId: number): number | undefined {
    return this.resident.get(userId)?.version;
  }
}

async function load(db: Db, userId: number, version: number, embedder: string, dimensions: number): Promise<Resident> {
  const ids: number[] = [];
  const docIds: string[] = [];
  const encoded: string[] = [];
  let after = 0;
  for (;;) {
    const page = await vectorPage(db, userId, embedder, after, PAGE_SIZE);
    for (const row of page) {
      if (row.vector === null) continue;
      ids.push(row.id);
      docIds.push(row.docId);
      encoded.push(row.vector);
    }
    if (page.length < PAGE_SIZE) break;
    after = page[page.length - 1]!.id;
  }
  const matrix = new Float32Array(ids.length * dimensions);
  encoded.forEach((vector, i) => decodeVectorInto(vector, matrix, i * dimensions, dimensions));
  const rows = new Map(ids.map((id, row) => [id, row]));
  return { version, embedder, ids: Int32Array.from(ids), docIds, rows, matrix };
}

export class D1ExactIndex implements VectorIndex {
  readonly name = "d1-exact";
  readonly storesInD1 = true;

  /** `memory`: the isolate's resident indexes; an index built without them (a test) keeps its own. */
  constructor(
    private readonly db: Db,
    private readonly embedder: string,
    private readonly dimensions: number,
    private readonly memory: ResidentVectors = new ResidentVectors(),
  ) {}

  private async current(userId: number, version: number): Promise<Resident> {
    const { resident, loading } = this.memory;
    const cached = resident.get(userId);
    if (cached && cached.version === version && cached.embedder === this.embedder) return cached;
    const pending = loading.get(userId);
    if (pending) {
      const loaded = await pending;
      if (loaded.version === version && loaded.embedder === this.embedder) return loaded;
    }
    const promise = load(this.db, userId, version, this.embedder, this.dimensions);
    loading.set(userId, promise);
    try {
      const loaded = await promise;
      // Written when loaded, so the cache's oldest write is the least recently loaded index.
      resident.set(userId, loaded);
      return loaded;
    } finally {
      if (loading.get(userId) === promise) loading.delete(userId);
    }
  }

  async search(userId: number, version: number, vector: Float32Array, limit: number): Promise<VectorHit[]> {
    const index = await this.current(userId, version);
    const d = this.dimensions;
    const n = index.ids.length;
    const scores = new Float32Array(n);
    const m = index.matrix;
    for (let row = 0; row < n; row++) {
      let dot = 0;
      const base = row * d;
      for (let j = 0; j < d; j++) dot += vector[j]! * m[base + j]!;
      scores[row] = dot;
    }
    return topRows(scores, limit).map(({ row, score }) => ({ chunkId: index.ids[row]!, docId: index.docIds[row]!, score }));
  }

  vectorOf(userId: number, chunkId: number): Float32Array | undefined {
    const index = this.memory.resident.get(userId);
    const row = index?.embedder === this.embedder ? index.rows.get(chunkId) : undefined;
    return row === undefined ? undefined : index!.matrix.subarray(row * this.dimensions, (row + 1) * this.dimensions);
  }

  async upsert(_userId: number, _vectors: readonly StoredVector[]): Promise<void> {
    // Vectors were written with their chunks; the version bump invalidates the resident copy.
  }

  async remove(_userId: number, _chunkIds: readonly number[]): Promise<void> {
    // Deleted with their chunks (ON DELETE CASCADE); the version bump invalidates the resident copy.
  }
}
