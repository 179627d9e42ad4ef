/** The RAG answer view, the RAG server's MCP App: opened by every query tool, it shows the passages behind the answer. */
import type { McpServer } from "@modelcontextprotocol/server";
import { type BuiltInApp, registerBuiltInApp } from "../mcp/app-resource";

export const ANSWER_VIEW_APP: BuiltInApp = {
  uri: "ui://rag/answer-view.html",
  view: "answer-view",
  title: "Answer view",
  description: "A RAG answer with the passages behind it: each one's title, source and score, best first.",
};

export function registerRagResources(server: McpServer): void {
  registerBuiltInApp(server, ANSWER_VIEW_APP);
}
