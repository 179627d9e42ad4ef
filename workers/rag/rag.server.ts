/** The RAG MCP server at /mcp/rag. */
import { ownSkills } from "../mcp/own-skills";
import type { McpServerDefinition } from "../mcp/server-definition";
import { registerRagResources } from "./answer-view.resources";
import { RAG_PIPELINES_SKILL_FILES } from "./rag-pipelines-skill";
import { ragTools } from "./rag.tools";

export const ragServer: McpServerDefinition = {
  name: "rag",
  version: "0.1.0",
  instructions:
    "Ask questions of your own documents. Add them with rag_ingest, then ask with rag_basic (fast, hybrid) or a specialised pipeline: rag_basic_rerank (precise), rag_crag (self-correcting), rag_graphrag (entities and relations), rag_colbert (token-level matching), rag_global_graphrag (questions about the whole collection). Answers cite documents as [n].",
  tools: ragTools,
  // The skill on which pipeline to choose when (decision 0072).
  skills: ownSkills(RAG_PIPELINES_SKILL_FILES),
  // The answer view app (ui://rag/answer-view.html), opened by the query tools.
  extend: (server) => registerRagResources(server),
  extensionScopes: ["rag:read"],
  extensionNames: { uriPrefixes: ["ui://rag/"], prompts: [] },
};
