/** REST over the RAG documents: the same schemas and service as the rag_* document tools. */
import * as z from "zod";
import { defineRoute } from "../http/api-route";
import { urlNumber } from "../http/url-number";
import {
  deleteDocumentResult,
  documentPage,
  documentSummary,
  fields,
  ingestInput,
  ingestResult,
  listDocumentsInput,
  ragHealth,
} from "./rag.schema";

const TAG = "documents";
const listQuery = listDocumentsInput.extend({ limit: urlNumber(listDocumentsInput.shape.limit.unwrap()).default(20) });
const docParams = z.object({ doc_id: fields.doc_id });

export const ragRoutes = [
  defineRoute({
    method: "post",
    path: "/api/documents",
    scopes: ["rag:write"],
    summary: "Ingest documents (chunked, embedded, entity graph); a known id replaces its document",
    tag: TAG,
    body: ingestInput,
    response: ingestResult,
    status: 201,
    handle: ({ body }, c) => c.var.services.rag.ingest(c.var.user.id, body),
  }),
  defineRoute({
    method: "get",
    path: "/api/documents",
    scopes: ["rag:read"],
    summary: "List documents, oldest first",
    tag: TAG,
    query: listQuery,
    response: documentPage,
    handle: ({ query }, c) => c.var.services.rag.list(c.var.user.id, query.limit, query.cursor),
  }),
  defineRoute({
    method: "get",
    path: "/api/documents/{doc_id}",
    scopes: ["rag:read"],
    summary: "One document's summary",
    tag: TAG,
    params: docParams,
    response: z.object({ document: documentSummary }),
    handle: async ({ params }, c) => ({ document: await c.var.services.rag.get(c.var.user.id, params.doc_id) }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/documents/{doc_id}",
    scopes: ["rag:write"],
    summary: "Delete a document with its chunks, vectors and graph mentions",
    tag: TAG,
    params: docParams,
    response: deleteDocumentResult,
    handle: ({ params }, c) => c.var.services.rag.delete(c.var.user.id, params.doc_id),
  }),
  defineRoute({
    method: "get",
    path: "/api/rag/health",
    scopes: ["rag:read"],
    summary:
      "RAG health: the status of the server and each pipeline, and the caller's own query figures (also part of /health with a token)",
    tag: TAG,
    response: ragHealth,
    handle: (_input, c) => c.var.services.rag.health(c.var.user.id),
  }),
];
