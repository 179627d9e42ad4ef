/**
 * Ingestion: each document is chunked on sentence boundaries, embedded, mined for entities and
 * relations, and written with its chunks in one D1 batch per group of documents. A document whose
 * id exists is replaced; one whose title and text are unchanged is left alone. Progress is reported
 * after every group.
 */
import { AppError } from "../lib/errors";
import type { Db } from "../lib/db";
import { sha256Hex } from "../lib/encoding";
import { extractGraph } from "./graph/entities";
import { existingHashes, type PreparedDocument, writeDocuments } from "./ingest.repo";
import type { Embedder } from "./models/types";
import { readCollection } from "./rag.repo";
import type { DocumentInput, IngestInput, IngestResult } from "./rag.schema";
import { encodeVector, type VectorIndex } from "./retrieval/vector-index";
import { chunkText } from "./text/chunk";
import { terms } from "./text/tokenize";

/** Documents per D1 batch: small enough for D1's limits, large enough to amortise round trips. */
const GROUP_SIZE = 10;

export type ProgressReporter = (done: number, total: number, message: string) => Promise<void>;

export interface IngestDeps {
  db: Db;
  embedder: Embedder;
  index: VectorIndex;
}

function assignIds(documents: readonly DocumentInput[]): (DocumentInput & { id: string })[] {
  const seen = new Map<string, number>();
  return documents.map((doc, i) => {
    const id = doc.id ?? crypto.randomUUID();
    const first = seen.get(id);
    if (first !== undefined) {
      throw AppError.invalid(`documents.${i}.id: "${id}" appears twice in this call (also documents.${first}.id)`, `documents.${i}.id`);
    }
    seen.set(id, i);
    return { ...doc, id };
  });
}

async function prepare(
  docs: readonly (DocumentInput & { id: string; hash: string })[],
  input: IngestInput,
  deps: IngestDeps,
  signal?: AbortSignal,
): Promise<{ prepared: PreparedDocument[]; vectors: Float32Array[][] }> {
  const chunked = docs.map((doc) =>
    chunkText(doc.text, { size: input.chunk_size, overlap: Math.min(input.chunk_overlap, input.chunk_size - 1) }),
  );
  const texts = docs.flatMap((doc, i) => chunked[i]!.map((chunk) => (doc.title ? `${doc.title}\n${chunk}` : chunk)));
  const flat = texts.length > 0 ? await deps.embedder.embed(texts, signal) : [];
  let cursor = 0;
  const vectors: Float32Array[][] = [];
  const prepared = docs.map((doc, i) => {
    const titleLength = terms(doc.title).length;
    const docVectors = chunked[i]!.map(() => flat[cursor++]!);
    vectors.push(docVectors);
    return {
      docId: doc.id,
      title: doc.title,
      source: doc.source,
      metadata: doc.metadata,
      contentHash: doc.hash,
      chunks: chunked[i]!.map((content, position) => {
        const graph = extractGraph(position === 0 ? doc.title : "", content);
        return {
          position,
          content,
          tokenCount: titleLength + terms(content).length,
          vector: deps.index.storesInD1 ? encodeVector(docVectors[position]!) : null,
          entities: graph.entities,
          relations: graph.relations,
        };
      }),
    };
  });
  return { prepared, vectors };
}

export async function ingestDocuments(
  deps: IngestDeps,
  userId: number,
  input: IngestInput,
  progress?: ProgressReporter,
  signal?: AbortSignal,
): Promise<IngestResult> {
  const documents = assignIds(input.documents);
  const hashes = await Promise.all(documents.map((d) => sha256Hex(`${d.title}\u0000${d.text}`)));
  const existing = await existingHashes(
    deps.db,
    userId,
    documents.map((d) => d.id),
  );
  const results: IngestResult["documents"] = [];
  let collection = { documentCount: 0, chunkCount: 0 };
  const changed = documents.map((doc, i) => ({ ...doc, hash: hashes[i]! })).filter((doc) => existing.get(doc.id) !== doc.hash);
  documents.forEach((doc, i) => {
    if (existing.get(doc.id) === hashes[i]) results.push({ doc_id: doc.id, status: "unchanged", chunks: 0, entities: 0 });
  });
  let done = documents.length - changed.length;
  if (progress && done > 0) await progress(done, documents.length, `${done} unchanged`);
  for (let start = 0; start < changed.length; start += GROUP_SIZE) {
    signal?.throwIfAborted();
    const group = changed.slice(start, start + GROUP_SIZE);
    const { prepared, vectors } = await prepare(group, input, deps, signal);
    const written = await writeDocuments(deps.db, userId, prepared, deps.embedder.name, {
      pruneEntities: group.some((doc) => existing.has(doc.id)),
      now: new Date().toISOString(),
    });
    if (!deps.index.storesInD1) {
      const stored = prepared.flatMap((doc, i) =>
        doc.chunks.map((chunk) => ({
          chunkId: written.chunkIds.get(doc.docId)!.get(chunk.position)!,
          vector: vectors[i]![chunk.position]!,
        })),
      );
      await deps.index.upsert(userId, stored);
    }
    collection = written.collection;
    for (const doc of prepared) {
      results.push({
        doc_id: doc.docId,
        status: existing.has(doc.docId) ? "replaced" : "created",
        chunks: doc.chunks.length,
        entities: new Set(doc.chunks.flatMap((c) => c.entities.map((e) => e.name))).size,
      });
    }
    done += group.length;
    if (progress) await progress(done, documents.length, `ingested ${done} of ${documents.length} documents`);
  }
  if (changed.length === 0) collection = await readCollection(deps.db, userId);
  const order = new Map(documents.map((d, i) => [d.id, i]));
  results.sort((a, b) => order.get(a.doc_id)! - order.get(b.doc_id)!);
  return { documents: results, document_count: collection.documentCount, chunk_count: collection.chunkCount, embedder: deps.embedder.name };
}
