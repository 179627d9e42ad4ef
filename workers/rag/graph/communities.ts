/**
 * Communities of the entity graph and their extractive summaries, for global questions.
 * Detection is weighted label propagation (deterministic: nodes in id order, ties to the smallest
 * label), which finds densely related groups in near-linear time — enough for a collection's graph
 * in one Worker invocation. A summary names the community's central entities and the documents
 * that discuss them most.
 */
import type { CommunityRecord, Edge, EntityRow } from "./graph.repo";

const MAX_ITERATIONS = 20;
const MIN_ENTITIES = 3;
const MAX_COMMUNITIES = 300;
const DOCUMENTS_PER_COMMUNITY = 20;

export function detectCommunities(nodeIds: readonly number[], edges: readonly Edge[]): Map<number, number> {
  const adjacency = new Map<number, { id: number; weight: number }[]>();
  const nodes = new Set(nodeIds);
  for (const e of edges) {
    if (!nodes.has(e.source) || !nodes.has(e.target) || e.source === e.target) continue;
    (adjacency.get(e.source) ?? adjacency.set(e.source, []).get(e.source)!).push({ id: e.target, weight: e.weight });
    (adjacency.get(e.target) ?? adjacency.set(e.target, []).get(e.target)!).push({ id: e.source, weight: e.weight });
  }
  const label = new Map(nodeIds.map((id) => [id, id]));
  const order = [...nodeIds].sort((a, b) => a - b);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let changed = false;
    for (const id of order) {
      const votes = new Map<number, number>();
      for (const n of adjacency.get(id) ?? []) votes.set(label.get(n.id)!, (votes.get(label.get(n.id)!) ?? 0) + n.weight);
      if (votes.size === 0) continue;
      let best = label.get(id)!;
      let bestVotes = votes.get(best) ?? 0;
      for (const [candidate, v] of votes) {
        if (v > bestVotes || (v === bestVotes && candidate < best)) {
          best = candidate;
          bestVotes = v;
        }
      }
      if (best !== label.get(id)) {
        label.set(id, best);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return label;
}

export function summarizeCommunities(
  entities: readonly EntityRow[],
  edges: readonly Edge[],
  mentions: readonly { entityId: number; docId: string; count: number }[],
  titles: ReadonlyMap<string, string>,
): CommunityRecord[] {
  const labels = detectCommunities(
    entities.map((e) => e.id),
    edges,
  );
  const byId = new Map(entities.map((e) => [e.id, e]));
  const members = new Map<number, number[]>();
  for (const [id, community] of labels) (members.get(community) ?? members.set(community, []).get(community)!).push(id);
  const degree = new Map<number, number>();
  for (const e of edges) {
    if (labels.get(e.source) !== undefined && labels.get(e.source) === labels.get(e.target)) {
      degree.set(e.source, (degree.get(e.source) ?? 0) + e.weight);
      degree.set(e.target, (degree.get(e.target) ?? 0) + e.weight);
    }
  }
  const mentionsByEntity = new Map<number, { docId: string; count: number }[]>();
  for (const m of mentions) (mentionsByEntity.get(m.entityId) ?? mentionsByEntity.set(m.entityId, []).get(m.entityId)!).push(m);
  const communities = [...members.values()]
    .filter((ids) => ids.length >= MIN_ENTITIES)
    .map((ids) => ({ ids, strength: ids.reduce((sum, id) => sum + (degree.get(id) ?? 0), 0) }))
    .sort((a, b) => b.strength - a.strength)
    .slice(0, MAX_COMMUNITIES);
  return communities.map(({ ids }) => {
    const central = [...ids].sort((a, b) => (degree.get(b) ?? 0) - (degree.get(a) ?? 0));
    const names = central.slice(0, 8).map((id) => byId.get(id)!.label);
    const docWeights = new Map<string, number>();
    for (const id of ids) for (const m of mentionsByEntity.get(id) ?? []) docWeights.set(m.docId, (docWeights.get(m.docId) ?? 0) + m.count);
    const documents = [...docWeights]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, DOCUMENTS_PER_COMMUNITY)
      .map(([doc_id, weight]) => ({ doc_id, weight }));
    const examples = documents.slice(0, 3).map((d) => titles.get(d.doc_id) || d.doc_id);
    const summary =
      `A group of ${ids.length} related entities centred on ${names.join(", ")}. ` +
      `It appears in ${docWeights.size} documents; the most representative are: ${examples.join("; ")}.`;
    return { title: names.slice(0, 3).join(" · "), summary, documents, entityCount: ids.length };
  });
}
