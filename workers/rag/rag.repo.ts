/**
 * D1 access for RAG documents and chunks. Every statement is scoped by user id. Reads that a query
 * needs together (lexical candidates, term statistics, the collection version, chunk texts) are
 * built here as statements and run by the caller in one `batch()` — one round trip.
 */
import { and, asc, count, eq, gt, inArray, type SQL, sql } from "drizzle-orm";
import { ragChunks, ragCollections, ragDocuments } from "../../d1/schema";
import { batch, type Db, type Row } from "../lib/db";

/** A chunk with what a result needs from its document. */
export interface ChunkRecord {
  chunkId: number;
  docId: string;
  title: string;
  content: string;
  source: string;
  metadata: Record<string, unknown>;
}

export interface CollectionState {
  version: number;
  documentCount: number;
  chunkCount: number;
  tokenCount: number;
}

/** bm25 column weights (title, content): the title counts three times (fitted on SciFact train). */
export const TITLE_WEIGHT = 3;

const chunkColumns = sql`c.id AS chunk_id, d.doc_id, c.title, c.content, d.source, d.metadata`;

export function toChunkRecord(row: Row): ChunkRecord {
  return {
    chunkId: Number(row["chunk_id"]),
    docId: String(row["doc_id"]),
    title: String(row["title"]),
    content: String(row["content"]),
    source: String(row["source"]),
    metadata: JSON.parse(String(row["metadata"] ?? "{}")) as Record<string, unknown>,
  };
}

/**
 * FTS5 candidates, best first, `score` = −bm25 (higher is better). Only the first `withText` rows
 * carry their text (title, content, source, metadata are NULL below): a caller that shows a handful
 * of documents should not move a hundred chunks out of D1 to rank them.
 */
export function lexicalStatement(userId: number, match: string, limit: number, withText = limit): SQL {
  return sql`WITH hits AS (
      SELECT rag_chunks_fts.rowid AS id, bm25(rag_chunks_fts, ${TITLE_WEIGHT}, 1.0) AS rank
      FROM rag_chunks_fts JOIN rag_chunks c ON c.id = rag_chunks_fts.rowid
      WHERE rag_chunks_fts MATCH ${match} AND c.user_id = ${userId}
      ORDER BY rank LIMIT ${limit}),
    numbered AS (SELECT id, rank, row_number() OVER (ORDER BY rank) AS n FROM hits)
    SELECT c.id AS chunk_id, d.doc_id, -h.rank AS score,
      CASE WHEN h.n <= ${withText} THEN c.title END AS title,
      CASE WHEN h.n <= ${withText} THEN c.content END AS content,
      CASE WHEN h.n <= ${withText} THEN d.source END AS source,
      CASE WHEN h.n <= ${withText} THEN d.metadata END AS metadata
    FROM numbered h JOIN rag_chunks c ON c.id = h.id JOIN rag_documents d ON d.id = c.document_id
    ORDER BY h.rank`;
}

export function chunksStatement(userId: number, chunkIds: readonly number[]): SQL {
  const ids = JSON.stringify(chunkIds);
  return sql`SELECT ${chunkColumns} FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id
    WHERE c.user_id = ${userId} AND c.id IN (SELECT value FROM json_each(${ids}))`;
}

export function collectionStatement(db: Db, userId: number) {
  return db.select().from(ragCollections).where(eq(ragCollections.userId, userId));
}

export function toCollection(rows: Row[] | undefined): CollectionState {
  const row = rows?.[0];
  if (!row) return { version: 0, documentCount: 0, chunkCount: 0, tokenCount: 0 };
  return {
    version: Number(row["version"]),
    documentCount: Number(row["document_count"]),
    chunkCount: Number(row["chunk_count"]),
    tokenCount: Number(row["token_count"]),
  };
}

export async function readCollection(db: Db, userId: number): Promise<CollectionState> {
  const [rows] = await batch(db, [collectionStatement(db, userId)]);
  return toCollection(rows);
}

export async function fetchChunks(db: Db, userId: number, chunkIds: readonly number[]): Promise<ChunkRecord[]> {
  if (chunkIds.length === 0) return [];
  const [rows] = await batch(db, [chunksStatement(userId, chunkIds)]);
  return rows!.map(toChunkRecord);
}

/** Each document's first chunk, for documents reached without a chunk (community members). */
export async function firstChunks(db: Db, userId: number, docIds: readonly string[]): Promise<ChunkRecord[]> {
  if (docIds.length === 0) return [];
  const [rows] = await batch(db, [
    sql`SELECT ${chunkColumns} FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id
      WHERE d.user_id = ${userId} AND c.position = 0 AND d.doc_id IN (SELECT value FROM json_each(${JSON.stringify(docIds)}))`,
  ]);
  return rows!.map(toChunkRecord);
}

/** One page of stored vectors for the resident index, in id order. */
export async function vectorPage(db: Db, userId: number, embedder: string, afterId: number, limit: number) {
  return db
    .select({ id: ragChunks.id, vector: ragChunks.vector, docId: ragDocuments.docId })
    .from(ragChunks)
    .innerJoin(ragDocuments, eq(ragDocuments.id, ragChunks.documentId))
    .where(and(eq(ragChunks.userId, userId), eq(ragChunks.embedder, embedder), gt(ragChunks.id, afterId)))
    .orderBy(asc(ragChunks.id))
    .limit(limit)
    .all();
}

export async function listDocuments(db: Db, userId: number, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(ragDocuments)
      .where(eq(ragDocuments.userId, userId))
      .orderBy(asc(ragDocuments.createdAt), asc(ragDocuments.id))
      .limit(limit + 1)
      .offset(offset)
      .all(),
    db.select({ n: count() }).from(ragDocuments).where(eq(ragDocuments.userId, userId)).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function findDocument(db: Db, userId: number, docId: string) {
  return db
    .select()
    .from(ragDocuments)
    .where(and(eq(ragDocuments.userId, userId), eq(ragDocuments.docId, docId)))
    .get();
}

export async function chunkIdsOf(db: Db, documentIds: readonly number[]): Promise<number[]> {
  if (documentIds.length === 0) return [];
  const rows = await db
    .select({ id: ragChunks.id })
    .from(ragChunks)
    .where(inArray(ragChunks.documentId, [...documentIds]))
    .all();
  return rows.map((r) => r.id);
}
