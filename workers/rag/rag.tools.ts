/** The RAG tools: six query pipelines, health, and document ingestion, listing and deletion. */
import type { z } from "zod";
import { opensApp } from "../mcp/app-resource";
import { defineTool, READ_ONLY, type ToolDefinition } from "../mcp/tool";
import { ANSWER_VIEW_APP } from "./answer-view.resources";
import type { Pipeline } from "./pipelines/pipeline";
import { basicPipeline } from "./pipelines/basic";
import { basicRerankPipeline } from "./pipelines/basic-rerank";
import { colbertPipeline } from "./pipelines/colbert";
import { cragPipeline } from "./pipelines/crag";
import { globalGraphragPipeline } from "./pipelines/global-graphrag";
import { graphragPipeline } from "./pipelines/graphrag";
import { formatDocuments, formatHealth, formatIngest, formatQuery } from "./rag.format";
import {
  basicInput,
  basicRerankInput,
  colbertInput,
  type CommonInput,
  cragInput,
  deleteDocumentInput,
  deleteDocumentResult,
  documentPage,
  globalGraphragInput,
  graphragInput,
  healthInput,
  ingestInput,
  ingestResult,
  listDocumentsInput,
  queryResult,
  ragHealth,
} from "./rag.schema";

const COMMON =
  " Returns an answer citing documents as [n], the top_k documents (one entry each, its best chunk as content, best first), de-duplicated sources, and metadata naming the embedder, reranker and generator used, with timings.";

type QueryInput = z.ZodObject<z.ZodRawShape> & z.ZodType<CommonInput>;

/**
 * Every pipeline tool has the same shape: the pipeline names the tool, runs it, formats the answer;
 * and each opens the answer view, which renders the passages of its structuredContent.
 */
function queryTool<I extends QueryInput>(spec: { pipeline: Pipeline<z.output<I>>; title: string; description: string; input: I }) {
  return defineTool({
    name: spec.pipeline.name,
    title: spec.title,
    description: spec.description + COMMON,
    input: spec.input,
    output: queryResult,
    annotations: READ_ONLY,
    scopes: ["rag:read"],
    meta: opensApp(ANSWER_VIEW_APP),
    run: async (args, { user, services }, call) => {
      const result = await services.rag.query(user.id, spec.pipeline, args, call.signal);
      return { data: result, text: formatQuery(result) };
    },
  });
}

const queryTools: ToolDefinition[] = [
  queryTool({
    pipeline: basicPipeline,
    title: "Ask your documents (hybrid retrieval)",
    description:
      "Answer a question from your ingested documents with hybrid retrieval: BM25 full-text search and vector similarity, fused (fusion_method weighted or rrf; vector_weight sets the vector share). The fast default for specific questions.",
    input: basicInput,
  }),
  queryTool({
    pipeline: basicRerankPipeline,
    title: "Ask your documents (retrieve, then rerank)",
    description:
      "Like rag_basic, but retrieves rerank_depth candidates and has the reranker read each one against the question before choosing the top_k. Slower, usually more precise.",
    input: basicRerankInput,
  }),
  queryTool({
    pipeline: cragPipeline,
    title: "Ask your documents (corrective RAG)",
    description:
      "Corrective RAG: scores how well the retrieved evidence covers the question (confidence_score, 0–1); below confidence_threshold it applies correction_strategy — rewrite the query into its key terms, decompose it into sub-questions, or expand it with terms from the best evidence — and retrieves again. metadata says whether a correction was applied and which queries ran.",
    input: cragInput,
  }),
  queryTool({
    pipeline: graphragPipeline,
    title: "Ask your documents (entity graph)",
    description:
      "GraphRAG: finds the entities the question names in the entity graph built at ingest, follows relations graph_traversal_depth hops, ranks the chunks that mention them, and fuses that ranking with text retrieval by reciprocal rank fusion (rrf_score). Good when the answer hinges on named things and their connections.",
    input: graphragInput,
  }),
  queryTool({
    pipeline: colbertPipeline,
    title: "Ask your documents (late interaction)",
    description:
      "ColBERT-style late interaction: every query token is matched to its most similar token in each candidate (MaxSim over sub-word token vectors); matches below interaction_threshold count for nothing. Catches word-form variants exact search misses. metadata.token_interactions counts the matches.",
    input: colbertInput,
  }),
  queryTool({
    pipeline: globalGraphragPipeline,
    title: "Ask about your whole collection (community summaries)",
    description:
      "Global GraphRAG for broad questions about the collection as a whole (themes, main topics): answers from summaries of communities of the entity graph, max_communities of them, and lists the documents those communities rest on. Citations [n] refer to metadata.communities. Use rag_basic for specific questions.",
    input: globalGraphragInput,
  }),
];

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const documentTools: ToolDefinition[] = [
  defineTool({
    name: "rag_ingest",
    title: "Add documents",
    description:
      "Add up to 100 documents to your collection: each with text and optionally id (e.g. a BEIR _id; made up when absent), title, source and metadata. Documents are chunked (chunk_size words, chunk_overlap shared), embedded, and mined for entities and relations. A document whose id exists is replaced; an unchanged one is skipped. Sends progress notifications when the request has a progressToken.",
    input: ingestInput,
    output: ingestResult,
    annotations: WRITE,
    scopes: ["rag:write"],
    run: async (args, { user, services }, call) => {
      const result = await services.rag.ingest(user.id, args, call.progress, call.signal);
      return { data: result, text: formatIngest(result) };
    },
  }),
  defineTool({
    name: "rag_list_documents",
    title: "List documents",
    description: "List the documents in your collection, oldest first, with their ids, titles, sources and chunk counts. Page with cursor.",
    input: listDocumentsInput,
    output: documentPage,
    annotations: READ_ONLY,
    scopes: ["rag:read"],
    run: async (args, { user, services }) => {
      const page = await services.rag.list(user.id, args.limit, args.cursor);
      return { data: page, text: formatDocuments(page) };
    },
  }),
  defineTool({
    name: "rag_delete_document",
    title: "Delete document",
    description: "Delete one document (by its doc_id) with its chunks, vectors and graph mentions.",
    input: deleteDocumentInput,
    output: deleteDocumentResult,
    annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
    scopes: ["rag:write"],
    run: async (args, { user, services }) => {
      const result = await services.rag.delete(user.id, args.doc_id);
      return { data: result, text: `Deleted document ${result.doc_id} (${result.chunks} chunks).` };
    },
  }),
  defineTool({
    name: "rag_health",
    title: "RAG health",
    description:
      "Health of the RAG server: overall healthy, degraded or unavailable and each pipeline's status (over all users' queries), D1 connectivity and response time; and your own queries' figures: per pipeline your last success, last error and error rate, and your p50/p95 latency, error rate and queries per minute over the last hour.",
    input: healthInput,
    output: ragHealth,
    annotations: READ_ONLY,
    scopes: ["rag:read"],
    run: async (_args, { user, services }) => {
      const health = await services.rag.health(user.id);
      return { data: health, text: formatHealth(health) };
    },
  }),
];

export const ragTools: readonly ToolDefinition[] = [...queryTools, ...documentTools];
