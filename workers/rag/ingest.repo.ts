/**
 * RAG writes. A group of documents is written in one D1 batch (one transaction): each document
 * replaces any previous version (the delete cascades to chunks, FTS rows, mentions and relations),
 * bulk rows go in through json_each (one statement per table per document, few bound parameters),
 * and the collection row's counts and version are recomputed in the same batch.
 */
import { type SQL, sql } from "drizzle-orm";
import { batch, type Db, type Row } from "../lib/db";
import type { Entity, Relation } from "./graph/entities";

export interface PreparedChunk {
  position: number;
  content: string;
  tokenCount: number;
  /** base64 int8 vector when the D1 index stores vectors, else null. */
  vector: string | null;
  entities: Entity[];
  relations: Relation[];
}

export interface PreparedDocument {
  docId: string;
  title: string;
  source: string;
  metadata: Record<string, unknown>;
  contentHash: string;
  chunks: PreparedChunk[];
}

function documentRowId(userId: number, docId: string): SQL {
  return sql`(SELECT id FROM rag_documents WHERE user_id = ${userId} AND doc_id = ${docId})`;
}

export function refreshCollection(userId: number, now: string): SQL {
  return sql`INSERT INTO rag_collections (user_id, version, document_count, chunk_count, token_count, updated_at)
    VALUES (${userId}, 1,
      (SELECT count(*) FROM rag_documents WHERE user_id = ${userId}),
      (SELECT count(*) FROM rag_chunks WHERE user_id = ${userId}),
      (SELECT coalesce(sum(token_count), 0) FROM rag_chunks WHERE user_id = ${userId}),
      ${now})
    ON CONFLICT (user_id) DO UPDATE SET version = rag_collections.version + 1,
      document_count = excluded.document_count, chunk_count = excluded.chunk_count,
      token_count = excluded.token_count, updated_at = excluded.updated_at
    RETURNING version, document_count, chunk_count`;
}

/** Entities left without any mention after a replace or delete. */
export function pruneOrphanEntities(userId: number): SQL {
  return sql`DELETE FROM rag_entities WHERE user_id = ${userId}
    AND NOT EXISTS (SELECT 1 FROM rag_mentions m WHERE m.entity_id = rag_entities.id)`;
}

function documentStatements(userId: number, doc: PreparedDocument, embedder: string, now: string): SQL[] {
  const rowId = documentRowId(userId, doc.docId);
  const chunks = JSON.stringify(doc.chunks.map((c) => ({ p: c.position, c: c.content, t: c.tokenCount, v: c.vector })));
  const entities = new Map<string, Entity>();
  const mentions: { p: number; n: string; c: number }[] = [];
  const relations: { p: number; s: string; t: string; w: number }[] = [];
  for (const chunk of doc.chunks) {
    for (const e of chunk.entities) {
      if (!entities.has(e.name)) entities.set(e.name, e);
      mentions.push({ p: chunk.position, n: e.name, c: e.count });
    }
    for (const r of chunk.relations) relations.push({ p: chunk.position, s: r.source, t: r.target, w: r.weight });
  }
  const entityRows = JSON.stringify([...entities.values()].map((e) => ({ n: e.name, l: e.label, k: e.kind })));
  return [
    sql`DELETE FROM rag_documents WHERE user_id = ${userId} AND doc_id = ${doc.docId}`,
    sql`INSERT INTO rag_documents (user_id, doc_id, title, source, metadata, chunk_count, content_hash, created_at, updated_at)
      VALUES (${userId}, ${doc.docId}, ${doc.title}, ${doc.source}, ${JSON.stringify(doc.metadata)}, ${doc.chunks.length}, ${doc.contentHash}, ${now}, ${now})`,
    sql`INSERT INTO rag_chunks (document_id, user_id, position, title, content, token_count, embedder, vector)
      SELECT ${rowId}, ${userId}, j.value ->> 'p', ${doc.title}, j.value ->> 'c', j.value ->> 't', ${embedder}, j.value ->> 'v'
      FROM json_each(${chunks}) j
      RETURNING id, position`,
    sql`INSERT INTO rag_entities (user_id, name, label, kind)
      SELECT ${userId}, j.value ->> 'n', j.value ->> 'l', j.value ->> 'k' FROM json_each(${entityRows}) j WHERE true
      ON CONFLICT (user_id, name) DO NOTHING`,
    // Names and positions resolve through indexed scalar subqueries: joining json_each to the
    // tables lets SQLite pick a full scan of rag_entities as the outer loop.
    sql`INSERT INTO rag_mentions (entity_id, chunk_id, count)
      SELECT entity_id, chunk_id, n FROM (
        SELECT (SELECT id FROM rag_entities WHERE user_id = ${userId} AND name = j.value ->> 'n') AS entity_id,
          (SELECT id FROM rag_chunks WHERE document_id = ${rowId} AND position = j.value ->> 'p') AS chunk_id,
          j.value ->> 'c' AS n
        FROM json_each(${JSON.stringify(mentions)}) j)
      WHERE entity_id IS NOT NULL AND chunk_id IS NOT NULL
      ON CONFLICT DO NOTHING`,
    sql`INSERT INTO rag_relations (chunk_id, user_id, source_id, target_id, weight)
      SELECT chunk_id, ${userId}, source_id, target_id, w FROM (
        SELECT (SELECT id FROM rag_chunks WHERE document_id = ${rowId} AND position = j.value ->> 'p') AS chunk_id,
          (SELECT id FROM rag_entities WHERE user_id = ${userId} AND name = j.value ->> 's') AS source_id,
          (SELECT id FROM rag_entities WHERE user_id = ${userId} AND name = j.value ->> 't') AS target_id,
          j.value ->> 'w' AS w
        FROM json_each(${JSON.stringify(relations)}) j)
      WHERE chunk_id IS NOT NULL AND source_id IS NOT NULL AND target_id IS NOT NULL`,
  ];
}

export interface WriteResult {
  /** Per document, its chunk ids by position (for an external vector index). */
  chunkIds: Map<string, Map<number, number>>;
  collection: { version: number; documentCount: number; chunkCount: number };
}

function collectionFrom(row: Row | undefined): WriteResult["collection"] {
  return {
    version: Number(row?.["version"] ?? 0),
    documentCount: Number(row?.["document_count"] ?? 0),
    chunkCount: Number(row?.["chunk_count"] ?? 0),
  };
}

export async function writeDocuments(
  db: Db,
  userId: number,
  docs: readonly PreparedDocument[],
  embedder: string,
  options: { pruneEntities: boolean; now: string },
): Promise<WriteResult> {
  const perDoc = docs.map((doc) => documentStatements(userId, doc, embedder, options.now));
  const statements = [...perDoc.flat()];
  if (options.pruneEntities) statements.push(pruneOrphanEntities(userId));
  statements.push(refreshCollection(userId, options.now));
  const results = await batch(db, statements);
  const chunkIds = new Map<string, Map<number, number>>();
  docs.forEach((doc, i) => {
    const rows = results[i * 6 + 2] ?? [];
    chunkIds.set(doc.docId, new Map(rows.map((r) => [Number(r["position"]), Number(r["id"])])));
  });
  return { chunkIds, collection: collectionFrom(results[results.length - 1]?.[0]) };
}

export async function deleteDocumentRows(db: Db, userId: number, docId: string, now: string) {
  const results = await batch(db, [
    sql`DELETE FROM rag_documents WHERE user_id = ${userId} AND doc_id = ${docId} RETURNING chunk_count`,
    pruneOrphanEntities(userId),
    refreshCollection(userId, now),
  ]);
  const deleted = results[0]?.[0];
  return { deleted: deleted ? Number(deleted["chunk_count"]) : undefined, collection: collectionFrom(results[2]?.[0]) };
}

export async function existingHashes(db: Db, userId: number, docIds: readonly string[]): Promise<Map<string, string>> {
  const [rows] = await batch(db, [
    sql`SELECT doc_id, content_hash FROM rag_documents
      WHERE user_id = ${userId} AND doc_id IN (SELECT value FROM json_each(${JSON.stringify(docIds)}))`,
  ]);
  return new Map(rows!.map((r) => [String(r["doc_id"]), String(r["content_hash"])]));
}
