/**
 * The tools each MCP server promises, pinned by hand on purpose: these names and hints are the
 * public contract clients and models rely on, so changing one must change this file too.
 * Every tool answers with structuredContent, so every tool declares an output schema.
 */
import type { ServerContract } from "../../helpers/contract";

const TASK_TOOLS = [
  "add_task",
  "list_tasks",
  "complete_task",
  "delete_task",
  "update_task",
  "search_tasks",
  "set_priority",
  "add_tags",
  "schedule_reminder",
  "get_recurring_tasks",
  "analytics_summary",
  "show_task_board",
];
const RAG_TOOLS = [
  "rag_basic",
  "rag_basic_rerank",
  "rag_crag",
  "rag_graphrag",
  "rag_colbert",
  "rag_global_graphrag",
  "rag_ingest",
  "rag_list_documents",
  "rag_delete_document",
  "rag_health",
];
const THINKING_TOOLS = ["sequentialthinking", "reset_thinking"];
export const GATEWAY_ADMIN_TOOLS = [
  "gateway_list_sources",
  "gateway_add_source",
  "gateway_update_source",
  "gateway_refresh_source",
  "gateway_delete_source",
  "gateway_source_health",
  "gateway_list_hidden_tools",
  "gateway_hide_tool",
  "gateway_unhide_tool",
  "gateway_connect_source",
  "gateway_disconnect_source",
];

export const TASKS: ServerContract = {
  path: "/mcp/tasks",
  tools: TASK_TOOLS,
  withOutputSchema: TASK_TOOLS,
  readOnly: ["list_tasks", "search_tasks", "get_recurring_tasks", "analytics_summary", "show_task_board"],
  destructive: ["delete_task"],
};

export const RAG: ServerContract = {
  path: "/mcp/rag",
  tools: RAG_TOOLS,
  withOutputSchema: RAG_TOOLS,
  readOnly: RAG_TOOLS.filter((name) => !["rag_ingest", "rag_delete_document"].includes(name)),
  destructive: ["rag_delete_document"],
};

export const THINKING: ServerContract = {
  path: "/mcp/thinking",
  tools: THINKING_TOOLS,
  withOutputSchema: THINKING_TOOLS,
  readOnly: [],
  destructive: ["reset_thinking"],
};

/** The gateway, for a user with no sources: every built-in server's tools plus its own admin tools. */
export const GATEWAY: ServerContract = {
  path: "/mcp",
  tools: [...TASK_TOOLS, ...RAG_TOOLS, ...THINKING_TOOLS, ...GATEWAY_ADMIN_TOOLS],
  withOutputSchema: [...TASK_TOOLS, ...RAG_TOOLS, ...THINKING_TOOLS, ...GATEWAY_ADMIN_TOOLS],
  readOnly: [
    ...TASKS.readOnly,
    ...RAG.readOnly,
    ...THINKING.readOnly,
    "gateway_list_sources",
    "gateway_source_health",
    "gateway_list_hidden_tools",
  ],
  destructive: [...TASKS.destructive, ...RAG.destructive, ...THINKING.destructive, "gateway_delete_source", "gateway_disconnect_source"],
};
