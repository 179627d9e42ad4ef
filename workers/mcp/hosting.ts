/**
 * The hosting layer every MCP server here stands on: a fresh McpServer per request (never shared,
 * so no state can leak between clients), served statelessly by the Agents SDK's createMcpHandler
 * to 2026-07-28 clients and, through its stateless legacy lane, to 2025-06-18 / 2025-11-25 ones.
 * Origin checks and authentication run before this, in the /mcp/* middleware.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { registerTools, type ToolContext, type ToolDefinition } from "./tool";

/** Bodies over this are answered 413 before anything is parsed. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

export interface McpServerDefinition {
  /** Mounted at /mcp/<name>. */
  name: string;
  version: string;
  instructions: string;
  tools: readonly ToolDefinition[];
  /** Resources, prompts and completions beyond the tools. */
  extend?: (server: McpServer, ctx: ToolContext) => void;
}

export function buildServer(definition: McpServerDefinition, ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: `mcp-edge-${definition.name}`, version: definition.version },
    { instructions: definition.instructions, capabilities: { logging: {} } },
  );
  registerTools(server, definition.tools, ctx);
  definition.extend?.(server, ctx);
  return server;
}

export function serveMcp(request: Request, definition: McpServerDefinition, ctx: ToolContext): Promise<Response> {
  const handler = createMcpHandler(() => buildServer(definition, ctx), {
    route: new URL(request.url).pathname,
    // Origin validation already ran in our middleware, with our allow-list.
    allowedOriginHostnames: "*",
    corsOptions: false,
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
  });
  return handler.fetch(request);
}
