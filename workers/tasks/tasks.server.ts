/** The tasks MCP server at /mcp/tasks. */
import { ownSkills } from "../mcp/own-skills";
import type { McpServerDefinition } from "../mcp/server-definition";
import { TASK_TOOLS_SKILL_FILES } from "./task-tools-skill";
import { registerTaskResources } from "./tasks.resources";
import { taskTools } from "./tasks.tools";

export const tasksServer: McpServerDefinition = {
  name: "tasks",
  version: "0.1.0",
  instructions:
    "A personal task manager. Tasks belong to the signed-in user; ids come from list_tasks or search_tasks. Dates are ISO 8601.",
  tools: taskTools,
  // The skill on using these tools (decision 0072).
  skills: ownSkills(TASK_TOOLS_SKILL_FILES),
  extend: registerTaskResources,
  // The task resources and the review prompt read tasks.
  extensionScopes: ["tasks:read"],
  extensionNames: { uriPrefixes: ["task://", "ui://tasks/"], prompts: ["review_tasks"] },
};
