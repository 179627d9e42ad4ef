/**
 * Document frequencies of every indexed term, resident in the isolate like the vector index and
 * reloaded when the user's collection version changes. The lexical scorers (reranker, feedback,
 * confidence, late interaction) need df for any word of any candidate, and one fts5vocab scan per
 * collection version is far cheaper than a lookup per query. Terms seen in a single chunk are not
 * loaded (a missing term reads as df = 1): they are most of the vocabulary and rank nothing.
 */
import { gt } from "drizzle-orm";
import { ragChunksVocab } from "../../../d1/fts";
import { BoundedCache } from "../../lib/bounded-cache";
import type { Db } from "../../lib/db";

interface Resident {
  version: number;
  df: Map<string, number>;
}

const MAX_RESIDENT_USERS = 8;

/** Users' resident document frequencies, kept across requests (the isolate's: workers/isolate-state.ts). */
export class ResidentTermStats {
  readonly resident = new BoundedCache<number, Resident>({ maxEntries: MAX_RESIDENT_USERS });
  /** One load per user at a time: concurrent queries share it. */
  readonly loading = new Map<number, Promise<Resident>>();
}

async function load(db: Db, version: number): Promise<Resident> {
  const rows = await db
    .select({ term: ragChunksVocab.term, doc: ragChunksVocab.doc })
    .from(ragChunksVocab)
    .where(gt(ragChunksVocab.doc, 1))
    .all();
  return { version, df: new Map(rows.map((r) => [r.term, r.doc])) };
}

export async function documentFrequencies(
  memory: ResidentTermStats,
  db: Db,
  userId: number,
  version: number,
): Promise<ReadonlyMap<string, number>> {
  const { resident, loading } = memory;
  const cached = resident.get(userId);
  if (cached && cached.version === version) return cached.df;
  let pending = loading.get(userId);
  if (!pending) {
    pending = load(db, version);
    loading.set(userId, pending);
  }
  try {
    const loaded = await pending;
    resident.set(userId, loaded);
    return loaded.df;
  } finally {
    loading.delete(userId);
  }
}
