/**
 * rag_graphrag — retrieval through the entity graph built at ingest. The query's entities are the
 * seeds (weight 1); each hop up to `graph_traversal_depth` reaches the strongest neighbours, with
 * weight decaying per hop and by relation strength. Chunks are scored by the distinct entities they
 * mention (weight × rarity; entities in over a tenth of the chunks are ignored), and that ranking is fused with text retrieval by weighted RRF
 * (`graph_weight` against text's 1).
 */
import { entitiesByName, type EntityRow, mentionsOf, neighbours } from "../graph/graph.repo";
import { queryEntityKeys } from "../graph/entities";
import type { GraphragInput } from "../rag.schema";
import { minMaxNormalize, reciprocalRankFusion, type Scored, sortedByScore } from "../retrieval/fusion";
import { type Candidate, hybridRetrieve, resolveChunks } from "../retrieval/hybrid";
import { type Pipeline, retrievalDepth } from "./pipeline";

const HOP_DECAY = 0.5;
const EDGES_PER_HOP = 60;
const FRONTIER_SIZE = 20;
const MAX_ENTITIES = 60;
const MAX_ENTITY_SHARE = 0.1;
/** Entity evidence against text evidence (1) in the graph list (fitted on SciFact train). */
const ENTITY_EVIDENCE_WEIGHT = 0.15;

interface Reached {
  entity: EntityRow;
  weight: number;
}

export async function expandEntities(
  ctx: Parameters<typeof hybridRetrieve>[0],
  query: string,
  depth: number,
): Promise<Map<number, Reached>> {
  const seeds = await entitiesByName(ctx.db, ctx.userId, queryEntityKeys(query));
  const reached = new Map<number, Reached>(seeds.map((e) => [e.id, { entity: e, weight: 1 }]));
  let frontier = seeds.map((e) => e.id);
  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    ctx.signal.throwIfAborted();
    const edges = await neighbours(ctx.db, ctx.userId, frontier, EDGES_PER_HOP);
    const strongest = Math.max(1, ...edges.map((e) => e.weight));
    const added = new Map<number, Reached>();
    for (const edge of edges) {
      const parentId = edge.neighbour.id === edge.target ? edge.source : edge.target;
      const parent = reached.get(parentId);
      if (!parent || reached.has(edge.neighbour.id)) continue;
      const weight = parent.weight * HOP_DECAY * (edge.weight / strongest);
      const seen = added.get(edge.neighbour.id);
      if (!seen || seen.weight < weight) added.set(edge.neighbour.id, { entity: edge.neighbour, weight });
    }
    const next = [...added.values()].sort((a, b) => b.weight - a.weight).slice(0, FRONTIER_SIZE);
    for (const r of next) reached.set(r.entity.id, r);
    frontier = next.map((r) => r.entity.id);
  }
  const kept = [...reached.values()].sort((a, b) => b.weight - a.weight).slice(0, MAX_ENTITIES);
  return new Map(kept.map((r) => [r.entity.id, r]));
}

export const graphragPipeline: Pipeline<GraphragInput> = {
  name: "rag_graphrag",
  async run(ctx, input) {
    const depth = retrievalDepth(input);
    const text = await hybridRetrieve(ctx, input.query, { depth, fusion: input.fusion_method, vectorWeight: input.vector_weight });
    const reached = await expandEntities(ctx, input.query, input.graph_traversal_depth);
    const mentions = await mentionsOf(ctx.db, ctx.userId, [...reached.keys()]);
    const chunks = Math.max(1, text.collection.chunkCount);
    const graphScores = new Map<number, number>();
    for (const m of mentions) {
      const r = reached.get(m.entityId);
      // An entity in a large share of the chunks says little about any one of them.
      if (!r || r.entity.chunks > chunks * MAX_ENTITY_SHARE) continue;
      const rarity = Math.log((chunks - r.entity.chunks + 0.5) / (r.entity.chunks + 0.5));
      graphScores.set(m.chunkId, (graphScores.get(m.chunkId) ?? 0) + r.weight * rarity);
    }
    // The graph list ranks every chunk either list found by text evidence plus entity evidence:
    // entity matches alone are a weak ranking, but they reorder and extend the text one well.
    const textNorm = minMaxNormalize(text.candidates.map((c) => ({ id: c.chunkId, score: c.score })));
    const graphNorm = minMaxNormalize(sortedByScore(graphScores));
    const combined = new Map<number, number>();
    for (const id of new Set([...textNorm.keys(), ...graphNorm.keys()])) {
      combined.set(id, (textNorm.get(id) ?? 0) + ENTITY_EVIDENCE_WEIGHT * (graphNorm.get(id) ?? 0));
    }
    const graphRanking: Scored[] = sortedByScore(combined).slice(0, depth);
    const fused = sortedByScore(
      reciprocalRankFusion([
        { items: text.candidates.map((c) => ({ id: c.chunkId, score: c.score })), weight: 1 },
        { items: graphRanking, weight: input.graph_weight },
      ]),
    ).slice(0, depth);
    const known = new Map(text.candidates.map((c) => [c.chunkId, c]));
    const records = await resolveChunks(
      ctx,
      fused.map((f) => f.id),
      known,
    );
    const ranked: Candidate[] = fused.flatMap((f) => {
      const record = records.get(f.id);
      return record ? [{ ...record, score: f.score }] : [];
    });
    const entities = [...reached.values()]
      .sort((a, b) => b.weight - a.weight)
      .slice(0, 20)
      .map((r) => r.entity.label);
    return {
      ranked,
      candidates: new Set([...text.candidates.map((c) => c.chunkId), ...graphRanking.map((g) => g.id)]).size,
      metadata: {
        fusion_method: input.fusion_method,
        graph_traversal_depth: input.graph_traversal_depth,
        rrf_score: ranked[0]?.score ?? 0,
        entities,
      },
    };
  },
};
