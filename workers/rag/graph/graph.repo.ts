/** D1 reads of the entity graph (written at ingest by ingest.repo.ts) and of community summaries. */
import { sql } from "drizzle-orm";
import { batch, type Db, type Row } from "../../lib/db";

export interface EntityRow {
  id: number;
  name: string;
  label: string;
  /** Chunks that mention it. */
  chunks: number;
}

export interface Edge {
  source: number;
  target: number;
  weight: number;
}

function toEntity(r: Row): EntityRow {
  return { id: Number(r["id"]), name: String(r["name"]), label: String(r["label"]), chunks: Number(r["chunks"]) };
}

export async function entitiesByName(db: Db, userId: number, names: readonly string[]): Promise<EntityRow[]> {
  if (names.length === 0) return [];
  const [rows] = await batch(db, [
    sql`SELECT e.id, e.name, e.label, (SELECT count(*) FROM rag_mentions m WHERE m.entity_id = e.id) AS chunks
      FROM rag_entities e WHERE e.user_id = ${userId} AND e.name IN (SELECT value FROM json_each(${JSON.stringify(names)}))`,
  ]);
  return rows!.map(toEntity);
}

/** The strongest relations touching any of `ids`, summed over chunks, with the neighbours' mention counts. */
export async function neighbours(
  db: Db,
  userId: number,
  ids: readonly number[],
  limit: number,
): Promise<(Edge & { neighbour: EntityRow })[]> {
  if (ids.length === 0) return [];
  const list = JSON.stringify(ids);
  const [rows] = await batch(db, [
    sql`WITH frontier(id) AS (SELECT value FROM json_each(${list})),
      edges AS (
        SELECT r.source_id AS source, r.target_id AS target, sum(r.weight) AS weight FROM rag_relations r
        WHERE r.user_id = ${userId} AND (r.source_id IN frontier OR r.target_id IN frontier)
        GROUP BY r.source_id, r.target_id ORDER BY weight DESC LIMIT ${limit})
      SELECT edges.source, edges.target, edges.weight, e.id, e.name, e.label,
        (SELECT count(*) FROM rag_mentions m WHERE m.entity_id = e.id) AS chunks
      FROM edges JOIN rag_entities e ON e.id = CASE WHEN edges.source IN frontier THEN edges.target ELSE edges.source END`,
  ]);
  return rows!.map((r) => ({
    source: Number(r["source"]),
    target: Number(r["target"]),
    weight: Number(r["weight"]),
    neighbour: toEntity(r),
  }));
}

/** Chunks mentioning any of the entities, with the mention counts. */
export async function mentionsOf(
  db: Db,
  userId: number,
  entityIds: readonly number[],
): Promise<{ entityId: number; chunkId: number; count: number }[]> {
  if (entityIds.length === 0) return [];
  const [rows] = await batch(db, [
    sql`SELECT m.entity_id, m.chunk_id, m.count FROM rag_mentions m JOIN rag_entities e ON e.id = m.entity_id
      WHERE e.user_id = ${userId} AND m.entity_id IN (SELECT value FROM json_each(${JSON.stringify(entityIds)}))`,
  ]);
  return rows!.map((r) => ({ entityId: Number(r["entity_id"]), chunkId: Number(r["chunk_id"]), count: Number(r["count"]) }));
}

/**
 * The whole graph for community detection. Entities mentioned in fewer than `minSupport` chunks and
 * relations seen fewer than `minSupport` times are noise at scale; a small collection keeps them all.
 */
export async function loadGraph(db: Db, userId: number, minSupport: number) {
  const [entityRows, edgeRows, mentionRows] = await batch(db, [
    sql`SELECT e.id, e.name, e.label, count(*) AS chunks FROM rag_entities e JOIN rag_mentions m ON m.entity_id = e.id
      WHERE e.user_id = ${userId} GROUP BY e.id HAVING count(*) >= ${minSupport}`,
    sql`SELECT source_id AS source, target_id AS target, sum(weight) AS weight FROM rag_relations
      WHERE user_id = ${userId} GROUP BY source_id, target_id HAVING sum(weight) >= ${minSupport}`,
    sql`SELECT m.entity_id, d.doc_id, d.title, sum(m.count) AS count FROM rag_mentions m
      JOIN rag_chunks c ON c.id = m.chunk_id JOIN rag_documents d ON d.id = c.document_id
      WHERE c.user_id = ${userId} GROUP BY m.entity_id, d.doc_id`,
  ]);
  return {
    entities: entityRows!.map(toEntity),
    edges: edgeRows!.map((r) => ({ source: Number(r["source"]), target: Number(r["target"]), weight: Number(r["weight"]) })),
    mentions: mentionRows!.map((r) => ({ entityId: Number(r["entity_id"]), docId: String(r["doc_id"]), count: Number(r["count"]) })),
    titles: new Map(mentionRows!.map((r) => [String(r["doc_id"]), String(r["title"])])),
  };
}

export interface CommunityRecord {
  title: string;
  summary: string;
  documents: { doc_id: string; weight: number }[];
  entityCount: number;
}

export async function readCommunities(db: Db, userId: number, version: number): Promise<CommunityRecord[] | undefined> {
  const [rows] = await batch(db, [
    sql`SELECT title, summary, documents, entity_count FROM rag_communities WHERE user_id = ${userId} AND collection_version = ${version}`,
  ]);
  if (rows!.length === 0) return undefined;
  // A graph without communities is stored as one marker row with entity_count 0.
  return rows!
    .filter((r) => Number(r["entity_count"]) > 0)
    .map((r) => ({
      title: String(r["title"]),
      summary: String(r["summary"]),
      documents: JSON.parse(String(r["documents"])) as { doc_id: string; weight: number }[],
      entityCount: Number(r["entity_count"]),
    }));
}

/** Replaces the user's communities with those of `version` (an empty set is stored as one marker row). */
export async function writeCommunities(db: Db, userId: number, version: number, communities: readonly CommunityRecord[]): Promise<void> {
  const stored = communities.length > 0 ? communities : [{ title: "", summary: "", documents: [], entityCount: 0 }];
  const rows = JSON.stringify(stored.map((c) => ({ t: c.title, s: c.summary, d: JSON.stringify(c.documents), n: c.entityCount })));
  await batch(db, [
    sql`DELETE FROM rag_communities WHERE user_id = ${userId}`,
    sql`INSERT INTO rag_communities (user_id, collection_version, title, summary, documents, entity_count)
      SELECT ${userId}, ${version}, j.value ->> 't', j.value ->> 's', j.value ->> 'd', j.value ->> 'n' FROM json_each(${rows}) j`,
  ]);
}
