/** The tasks MCP server at /mcp/tasks. */
import type { McpServerDefinition } from "../mcp/server-definition";
import { registerTaskResources } from "./tasks.resources";
import { taskTools } from "./tasks.tools";

export const tasksServer: McpServerDefinition = {
  name: "tasks",
  version: "0.1.0",
  instructions:
    "A personal task manager. Tasks belong to the signed-in user; ids come from list_tasks or search_tasks. Dates are ISO 8601.",
  tools: taskTools,
  extend: registerTaskResources,
  // The task resources and the review prompt read tasks.
  extensionScopes: ["tasks:read"],
};
