/**
 * Field schemas for the RAG server, shared by the MCP tools, the REST routes and /openapi.json.
 * Every pipeline takes the common query fields plus its own parameters, each with a default.
 * No schema here takes a user id: documents belong to the authenticated user.
 */
import * as z from "zod";
import { MAX_JSON_DEPTH, storedJsonObject } from "../lib/stored-json";

export const PIPELINES = ["rag_basic", "rag_basic_rerank", "rag_crag", "rag_graphrag", "rag_colbert", "rag_global_graphrag"] as const;
export type PipelineName = (typeof PIPELINES)[number];

export const CORRECTION_STRATEGIES = ["rewrite", "decompose", "expand"] as const;
export const FUSION_METHODS = ["weighted", "rrf"] as const;

export const MAX_TOP_K = 50;
export const MAX_GENERATION_TOKENS = 4096;
export const MAX_TIMEOUT_MS = 60_000;
export const MAX_RANKING_DEPTH = 1000;
export const MAX_DOCUMENTS_PER_INGEST = 100;
/** Characters of one document's text; larger texts should be split by the caller. */
export const MAX_DOCUMENT_CHARS = 500_000;
/** A document's metadata, as JSON; it is returned with every listing of the document. */
export const MAX_METADATA_BYTES = 16 * 1024;

const uuidV4 = z.uuid({ version: "v4", error: "must be a UUID v4 (xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx)" });

export const fields = {
  query: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(8000, "must be at most 8000 characters")
    .describe("The question, 1–8000 characters"),
  top_k: z.int().min(1).max(MAX_TOP_K).describe(`How many documents to return, 1–${MAX_TOP_K}`),
  include_sources: z.boolean().describe("Return the de-duplicated list of sources"),
  include_metadata: z.boolean().describe("Return each document's ingested metadata"),
  request_id: uuidV4.describe("Your id for this request (UUID v4); echoed as response_id. Generated when absent"),
  max_tokens: z
    .int()
    .min(1)
    .max(MAX_GENERATION_TOKENS)
    .describe(`Upper bound on the generated answer, in tokens (at most ${MAX_GENERATION_TOKENS})`),
  timeout_ms: z
    .int()
    .min(100)
    .max(MAX_TIMEOUT_MS)
    .describe(`Give up after this many milliseconds (at most ${MAX_TIMEOUT_MS}); defaults to the server's RAG_QUERY_TIMEOUT_MS`),
  ranking_depth: z
    .int()
    .min(0)
    .max(MAX_RANKING_DEPTH)
    .describe("Diagnostics: also return the pipeline's document ranking to this depth (doc ids and scores); 0 = none"),
  doc_id: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(256, "must be at most 256 characters")
    .describe("The document's own id, as ingested"),
};

/** Fields every pipeline accepts. */
const common = {
  query: fields.query,
  top_k: fields.top_k.default(5),
  include_sources: fields.include_sources.default(true),
  include_metadata: fields.include_metadata.default(false),
  request_id: fields.request_id.optional(),
  max_tokens: fields.max_tokens.default(512),
  timeout_ms: fields.timeout_ms.optional(),
  ranking_depth: fields.ranking_depth.default(0),
};

export const basicInput = z.object({
  ...common,
  fusion_method: z
    .enum(FUSION_METHODS)
    .default("weighted")
    .describe("How lexical and vector rankings combine: weighted (normalised scores) or rrf (reciprocal rank fusion)"),
  vector_weight: z
    .number()
    .min(0)
    .max(1)
    .default(0.2)
    .describe("Share of the vector ranking in the fusion, 0–1 (0 = lexical only, 1 = vector only)"),
});

export const basicRerankInput = basicInput.extend({
  rerank_depth: z
    .int()
    .min(1)
    .max(200)
    .default(100)
    .describe("How many fused candidates the reranker scores before the top_k are kept, 1–200"),
});

export const cragInput = basicInput.extend({
  confidence_threshold: z
    .number()
    .min(0)
    .max(1)
    .default(0.6)
    .describe("Retrieval confidence (0–1) below which the correction strategy runs and retrieval is repeated"),
  correction_strategy: z
    .enum(CORRECTION_STRATEGIES)
    .default("expand")
    .describe("rewrite the query into key terms, decompose it into sub-questions, or expand it with feedback terms"),
});

export const graphragInput = basicInput.extend({
  graph_traversal_depth: z
    .int()
    .min(0)
    .max(3)
    .default(1)
    .describe("Hops from the query's entities through the entity graph, 0–3 (0 = the query's own entities only)"),
  graph_weight: z
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe("Weight of the graph ranking in the reciprocal rank fusion, against 1 for text retrieval"),
});

export const colbertInput = basicInput.extend({
  interaction_threshold: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe("Minimum token-to-token similarity (0–1) for a query token's MaxSim match to count"),
  candidate_depth: z.int().min(1).max(200).default(100).describe("How many first-stage candidates get late-interaction scoring"),
});

export const globalGraphragInput = z.object({
  ...common,
  max_communities: z.int().min(1).max(20).default(5).describe("How many community summaries the answer draws on, 1–20"),
});

export type BasicInput = z.output<typeof basicInput>;
export type BasicRerankInput = z.output<typeof basicRerankInput>;
export type CragInput = z.output<typeof cragInput>;
export type GraphragInput = z.output<typeof graphragInput>;
export type ColbertInput = z.output<typeof colbertInput>;
export type GlobalGraphragInput = z.output<typeof globalGraphragInput>;
export type CommonInput = z.output<z.ZodObject<typeof common>>;

// ---- query output ---------------------------------------------------------------------------

export const retrievedDocument = z.object({
  doc_id: z.string(),
  title: z.string(),
  content: z.string().describe("The document's best-matching chunk"),
  score: z.number().describe("Relevance under this pipeline; higher is better"),
  source: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional().describe("The document's ingested metadata (include_metadata)"),
});
export type RetrievedDocument = z.output<typeof retrievedDocument>;

export const queryMetadata = z.object({
  pipeline_name: z.enum(PIPELINES),
  execution_time_ms: z.number().min(0),
  tokens_used: z.int().min(0),
  embedder: z.string(),
  reranker: z.string(),
  generator: z.string(),
  vector_index: z.string(),
  candidates: z.int().min(0).describe("Chunks considered before the top_k were chosen"),
  fusion_method: z.enum(FUSION_METHODS).optional(),
  correction_applied: z.boolean().optional(),
  correction_strategy: z.enum(CORRECTION_STRATEGIES).optional(),
  confidence_score: z.number().optional(),
  corrected_queries: z.array(z.string()).optional(),
  token_interactions: z.int().min(0).optional(),
  graph_traversal_depth: z.int().min(0).optional(),
  rrf_score: z.number().optional().describe("The top document's reciprocal-rank-fusion score"),
  entities: z.array(z.string()).optional().describe("Graph entities the query reached"),
  communities: z.array(z.string()).optional().describe("Community summaries the answer drew on"),
});
export type QueryMetadata = z.output<typeof queryMetadata>;

export const performanceMetrics = z.object({
  execution_time_ms: z.number().min(0),
  retrieval_time_ms: z.number().min(0),
  generation_time_ms: z.number().min(0),
  tokens_used: z.int().min(0),
});

export const queryResult = z.object({
  answer: z.string(),
  retrieved_documents: z.array(retrievedDocument),
  sources: z.array(z.string()).describe("Where the documents came from, de-duplicated, best first"),
  metadata: queryMetadata,
  performance_metrics: performanceMetrics,
  response_id: z.string().describe("The request_id"),
  ranking: z
    .array(z.object({ doc_id: z.string(), score: z.number() }))
    .optional()
    .describe("The pipeline's document ranking to ranking_depth, when asked"),
});
export type QueryResult = z.output<typeof queryResult>;

// ---- documents ------------------------------------------------------------------------------

export const documentInput = z.object({
  id: fields.doc_id.optional().describe("Your id for the document (e.g. a BEIR _id); a UUID is made when absent"),
  title: z.string().max(1000, "must be at most 1000 characters").default(""),
  text: z
    .string()
    .refine((text) => text.trim().length > 0, "must not be empty")
    .refine((text) => text.length <= MAX_DOCUMENT_CHARS, `must be at most ${MAX_DOCUMENT_CHARS} characters`)
    .describe("The document's text"),
  source: z.string().max(2000, "must be at most 2000 characters").default("").describe("Where it came from (URL, file, citation)"),
  metadata: storedJsonObject(MAX_METADATA_BYTES)
    .default({})
    .describe(`Any JSON object, returned with the document: at most ${MAX_METADATA_BYTES} bytes, nested at most ${MAX_JSON_DEPTH} levels`),
});
export type DocumentInput = z.output<typeof documentInput>;

export const ingestInput = z.object({
  documents: z
    .array(documentInput)
    .min(1, "give at least one document")
    .max(MAX_DOCUMENTS_PER_INGEST, `at most ${MAX_DOCUMENTS_PER_INGEST} documents per call`)
    .describe("Documents to add; a document whose id exists replaces it"),
  chunk_size: z.int().min(32).max(2048).default(256).describe("Target chunk length in words, 32–2048"),
  chunk_overlap: z.int().min(0).max(512).default(32).describe("Words shared by consecutive chunks, less than chunk_size"),
});
export type IngestInput = z.output<typeof ingestInput>;

export const ingestResult = z.object({
  documents: z.array(
    z.object({
      doc_id: z.string(),
      status: z.enum(["created", "replaced", "unchanged"]),
      chunks: z.int(),
      entities: z.int(),
    }),
  ),
  document_count: z.int().describe("Documents in your collection after this call"),
  chunk_count: z.int().describe("Chunks in your collection after this call"),
  embedder: z.string(),
});
export type IngestResult = z.output<typeof ingestResult>;

export const documentSummary = z.object({
  doc_id: z.string(),
  title: z.string(),
  source: z.string(),
  chunk_count: z.int(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DocumentSummary = z.output<typeof documentSummary>;

export const listDocumentsInput = z.object({
  limit: z.int().min(1).max(100).default(20).describe("How many documents to return, 1–100"),
  cursor: z.string().max(200).optional().describe("Opaque cursor from a previous page's next_cursor"),
});

export const documentPage = z.object({
  documents: z.array(documentSummary),
  total: z.int(),
  next_cursor: z.string().nullable(),
});

export const deleteDocumentInput = z.object({ doc_id: fields.doc_id });
export const deleteDocumentResult = z.object({ deleted: z.literal(true), doc_id: z.string(), chunks: z.int() });

// ---- health ---------------------------------------------------------------------------------

export const HEALTH_STATES = ["healthy", "degraded", "unavailable"] as const;
export const PIPELINE_STATES = ["healthy", "degraded", "failing"] as const;

const pipelineStatus = z
  .enum(PIPELINE_STATES)
  .describe(
    "The pipeline's state over every user's queries of the last hour (failing: ≥ 50 % failed; degraded: ≥ 5 %); a word, no figures",
  );

export const pipelineHealth = z.object({
  pipeline: z.enum(PIPELINES),
  status: pipelineStatus,
  queries_last_hour: z.int().describe("Your queries of this pipeline in the last hour"),
  error_rate: z.number().min(0).max(1).describe("The share of your queries of this pipeline in the last hour that failed"),
  last_success: z.string().nullable().describe("When your last successful query of this pipeline started"),
  last_error: z.string().nullable().describe("When your last failed query of this pipeline in the last hour started"),
  p50_ms: z.number().min(0).describe("Median total latency of your answered queries of this pipeline in the last hour; 0 when none"),
  p95_ms: z
    .number()
    .min(0)
    .describe("95th-percentile total latency of your answered queries of this pipeline in the last hour; 0 when none"),
});

const d1Probe = z.object({ connected: z.boolean(), response_time_ms: z.number().min(0), error: z.string().optional() });
const serverStatus = z
  .enum(HEALTH_STATES)
  .describe("unavailable: D1 unreachable or every pipeline failing; healthy: every pipeline healthy; degraded otherwise");

/** What a signed-in caller sees: the server's status words, and their own figures only. */
export const ragHealth = z.object({
  status: serverStatus,
  pipelines: z.array(pipelineHealth),
  d1: d1Probe,
  last_hour: z
    .object({
      queries: z.int(),
      queries_per_minute: z.number().min(0),
      error_rate: z.number().min(0).max(1),
      p50_ms: z.number().min(0),
      p95_ms: z.number().min(0),
    })
    .describe("Your queries of the last hour, all pipelines together"),
  checked_at: z.string(),
});
export type RagHealth = z.output<typeof ragHealth>;
export type PipelineHealth = z.output<typeof pipelineHealth>;

/** What anonymous /health shows: status words only, no count, latency or time of anyone's queries. */
export const ragStatus = z.object({
  status: serverStatus,
  pipelines: z.array(z.object({ pipeline: z.enum(PIPELINES), status: pipelineStatus })),
  d1: d1Probe,
  checked_at: z.string(),
});
export type RagStatus = z.output<typeof ragStatus>;
export const healthInput = z.object({});
