/** The sequential-thinking MCP server at /mcp/thinking (the reference server's tool, stored per user). */
import type { McpServerDefinition } from "../mcp/server-definition";
import { thinkingTools } from "./thinking.tools";

export const thinkingServer: McpServerDefinition = {
  name: "thinking",
  version: "0.1.0",
  instructions:
    "Structured step-by-step thinking: call sequentialthinking once per thought (revise or branch as needed) until nextThoughtNeeded is false. Your thoughts are kept per user across sessions; reset_thinking deletes them.",
  tools: thinkingTools,
};
