/**
 * The RAG domain facade the MCP tools and REST routes share: queries (through the gate, with a
 * deadline and a log row), ingestion, listing and deletion. Models and the vector index are built
 * from configuration on first use, so a request that only lists documents never touches them.
 */
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { gateLimits, QueryGate } from "./gate";
import { checkRagHealth } from "./health.service";
import { ingestDocuments, type ProgressReporter } from "./ingest.service";
import { deleteDocumentRows } from "./ingest.repo";
import { createModels, type Models } from "./models/registry";
import type { Pipeline } from "./pipelines/pipeline";
import { runQuery } from "./query.service";
import { type RagConfig, readRagConfig } from "./rag.config";
import { chunkIdsOf, findDocument, listDocuments } from "./rag.repo";
import type { CommonInput, DocumentSummary, IngestInput, IngestResult, QueryResult, RagHealth } from "./rag.schema";
import { D1ExactIndex, ResidentVectors } from "./retrieval/exact-index";
import { ResidentTermStats } from "./retrieval/term-stats";
import type { VectorIndex } from "./retrieval/vector-index";
import { VectorizeVectorIndex } from "./retrieval/vectorize-index";
import { decodeCursor, encodeCursor } from "../lib/cursor";

/** What RAG keeps resident across requests, per user: the exact vector index and the term statistics (workers/isolate-state.ts). */
export interface RagMemory {
  vectors: ResidentVectors;
  termStats: ResidentTermStats;
}

export function ragMemory(): RagMemory {
  return { vectors: new ResidentVectors(), termStats: new ResidentTermStats() };
}

export class RagService {
  readonly config: RagConfig;
  private models: Models | undefined;
  private index: VectorIndex | undefined;
  private readonly gate: QueryGate;

  constructor(
    private readonly db: Db,
    private readonly env: Env,
    private readonly waitUntil: (promise: Promise<unknown>) => void,
    private readonly memory: RagMemory,
  ) {
    this.config = readRagConfig(env);
    this.gate = new QueryGate(env.RAG_GATE, gateLimits(this.config));
  }

  private getModels(): Models {
    return (this.models ??= createModels(this.config, this.env.AI));
  }

  private getIndex(): VectorIndex {
    if (!this.index) {
      const { embedder } = this.getModels();
      this.index = this.env.VECTORIZE
        ? new VectorizeVectorIndex(this.env.VECTORIZE)
        : new D1ExactIndex(this.db, embedder.name, embedder.dimensions, this.memory.vectors);
    }
    return this.index;
  }

  query<I extends CommonInput>(userId: number, pipeline: Pipeline<I>, input: I, cancel?: AbortSignal): Promise<QueryResult> {
    const deps = {
      db: this.db,
      config: this.config,
      models: () => this.getModels(),
      index: () => this.getIndex(),
      gate: this.gate,
      waitUntil: this.waitUntil,
      termStats: this.memory.termStats,
    };
    return runQuery(deps, userId, pipeline, input, cancel);
  }

  ingest(userId: number, input: IngestInput, progress?: ProgressReporter, signal?: AbortSignal): Promise<IngestResult> {
    return ingestDocuments({ db: this.db, embedder: this.getModels().embedder, index: this.getIndex() }, userId, input, progress, signal);
  }

  async list(userId: number, limit: number, cursor: string | undefined) {
    const offset = decodeCursor(cursor, "rag_list_documents");
    const { rows, total } = await listDocuments(this.db, userId, limit, offset);
    const documents = rows.slice(0, limit).map(toDocumentSummary);
    return { documents, total, next_cursor: rows.length > limit ? encodeCursor(offset + limit) : null };
  }

  async get(userId: number, docId: string): Promise<DocumentSummary> {
    const row = await findDocument(this.db, userId, docId);
    if (!row) throw AppError.notFound("Document", docId);
    return toDocumentSummary(row);
  }

  async delete(userId: number, docId: string): Promise<{ deleted: true; doc_id: string; chunks: number }> {
    const document = await findDocument(this.db, userId, docId);
    if (!document) throw AppError.notFound("Document", docId);
    const index = this.env.VECTORIZE ? this.getIndex() : undefined;
    const chunkIds = index ? await chunkIdsOf(this.db, [document.id]) : [];
    const result = await deleteDocumentRows(this.db, userId, docId, new Date().toISOString());
    if (result.deleted === undefined) throw AppError.notFound("Document", docId);
    if (index) await index.remove(userId, chunkIds);
    return { deleted: true, doc_id: docId, chunks: result.deleted };
  }

  /** The server's status words and this user's own figures (never another user's). */
  health(userId: number): Promise<RagHealth> {
    return checkRagHealth(this.db, userId);
  }
}

/** A document row as the tools and REST routes show it. */
function toDocumentSummary(row: NonNullable<Awaited<ReturnType<typeof findDocument>>>): DocumentSummary {
  return {
    doc_id: row.docId,
    title: row.title,
    source: row.source,
    chunk_count: row.chunkCount,
    metadata: row.metadata,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
