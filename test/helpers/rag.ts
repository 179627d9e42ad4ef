/** A small, hand-written corpus and shortcuts for the RAG tools over the shared MCP helper. */
import type { Client } from "@modelcontextprotocol/client";
import type { IngestResult, QueryResult } from "../../workers/rag/rag.schema";
import { callOk } from "./mcp";
import { CORPUS } from "./rag-corpus";

export { CORPUS };

export type { IngestResult, QueryResult };

export async function ingestCorpus(client: Client, documents: readonly Record<string, unknown>[] = CORPUS): Promise<IngestResult> {
  return callOk<IngestResult>(client, "rag_ingest", { documents });
}

export async function ask(client: Client, tool: string, args: Record<string, unknown>): Promise<QueryResult> {
  return callOk<QueryResult>(client, tool, args);
}
