/**
 * rag_global_graphrag — questions about the collection as a whole, answered over community
 * summaries of the entity graph (GraphRAG's "global search"). Communities are derived data: built
 * on the first global query after the collection changed, stored in D1 under the collection
 * version, and reused until the next ingest or delete. The question is matched against each
 * summary (BM25 over its text; larger communities break ties); the best `max_communities` become
 * the passages the answer is generated from, and their documents, weighted by community score and
 * mention strength, are the retrieved documents.
 */
import { summarizeCommunities } from "../graph/communities";
import { type CommunityRecord, loadGraph, readCommunities, writeCommunities } from "../graph/graph.repo";
import { idf } from "../models/types";
import type { GlobalGraphragInput } from "../rag.schema";
import { type CollectionState, firstChunks, readCollection } from "../rag.repo";
import { corpusStats, type RetrievalContext } from "../retrieval/hybrid";
import { queryTerms, terms } from "../text/tokenize";
import type { Pipeline } from "./pipeline";

/** Collections above this many chunks drop one-off entities and relations before detection. */
const LARGE_COLLECTION_CHUNKS = 500;

async function communitiesFor(ctx: RetrievalContext, collection: CollectionState): Promise<CommunityRecord[]> {
  const stored = await readCommunities(ctx.db, ctx.userId, collection.version);
  if (stored) return stored;
  const graph = await loadGraph(ctx.db, ctx.userId, collection.chunkCount > LARGE_COLLECTION_CHUNKS ? 2 : 1);
  ctx.signal.throwIfAborted();
  const built = summarizeCommunities(graph.entities, graph.edges, graph.mentions, graph.titles);
  await writeCommunities(ctx.db, ctx.userId, collection.version, built);
  return built;
}

export const globalGraphragPipeline: Pipeline<GlobalGraphragInput> = {
  name: "rag_global_graphrag",
  async run(ctx, input) {
    const collection = await readCollection(ctx.db, ctx.userId);
    const [communities, stats] = await Promise.all([communitiesFor(ctx, collection), corpusStats(ctx, collection)]);
    const wanted = queryTerms(input.query);
    const scored = communities.map((community) => {
      const tf = new Map<string, number>();
      for (const t of terms(`${community.title} ${community.summary}`)) tf.set(t, (tf.get(t) ?? 0) + 1);
      let match = 0;
      for (const t of wanted) {
        const f = tf.get(t) ?? 0;
        if (f > 0) match += (idf(stats, t) * f * 2.2) / (f + 1.2);
      }
      return { community, score: match + 0.01 * Math.log1p(community.entityCount) };
    });
    const chosen = scored.sort((a, b) => b.score - a.score).slice(0, input.max_communities);
    const docScores = new Map<string, number>();
    for (const { community, score } of chosen) {
      const strongest = Math.max(1, ...community.documents.map((d) => d.weight));
      for (const d of community.documents) docScores.set(d.doc_id, (docScores.get(d.doc_id) ?? 0) + score * (d.weight / strongest));
    }
    const depth = Math.max(input.top_k, input.ranking_depth);
    const topDocs = [...docScores].sort((a, b) => b[1] - a[1]).slice(0, depth);
    const records = new Map(
      (
        await firstChunks(
          ctx.db,
          ctx.userId,
          topDocs.map(([id]) => id),
        )
      ).map((r) => [r.docId, r]),
    );
    const ranked = topDocs.flatMap(([docId, score]) => {
      const record = records.get(docId);
      return record ? [{ ...record, score }] : [];
    });
    return {
      ranked,
      candidates: communities.length,
      metadata: { communities: chosen.map((c) => c.community.title) },
      passages: chosen.map((c, i) => ({ citation: i + 1, title: c.community.title, content: c.community.summary })),
    };
  },
};
