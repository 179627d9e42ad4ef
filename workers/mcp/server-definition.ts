/** What an MCP server here is: its tools, instructions and extras, served by mcp/hosting.ts. */
import type { McpServer, ServerOptions } from "@modelcontextprotocol/server";
import type { Scope } from "../auth/scopes";
import type { ToolContext, ToolDefinition } from "./tool";

export interface McpServerDefinition {
  /** Mounted at /mcp/<name>. */
  name: string;
  /** Where the SDK handler answers, when not /mcp/<name> (the gateway serves /mcp itself). */
  route?: string;
  version: string;
  instructions: string;
  tools: readonly ToolDefinition[];
  /** Resources, prompts and completions beyond the tools. */
  extend?: (server: McpServer, ctx: ToolContext) => void;
  /** The scopes reading what `extend` registers needs (resources, prompts, completions). */
  extensionScopes?: readonly Scope[];
  /** The scopes a tool needs when the tools are registered per request (the gateway); default: from `tools`. */
  toolScopes?: (name: string) => readonly Scope[] | undefined;
  /** 2026-07-28 cache hints (`ttlMs`, `cacheScope`) for the list results; absent = the SDK's `0` / `private`. */
  cacheHints?: ServerOptions["cacheHints"];
}
