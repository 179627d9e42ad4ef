/** What an MCP server here is: its tools, instructions and extras, served by mcp/hosting.ts. */
import type { McpServer, ServerOptions } from "@modelcontextprotocol/server";
import type { Scope } from "../auth/scopes";
import type { ToolContext, ToolDefinition } from "./tool";

/**
 * `C` is the tool context the server's `extend` reads: a server that registers per request what
 * the request may reach (the gateway) extends ToolContext with typed request state.
 */
export interface McpServerDefinition<C extends ToolContext = ToolContext> {
  /** Mounted at /mcp/<name>. */
  name: string;
  /** Where the SDK handler answers, when not /mcp/<name> (the gateway serves /mcp itself). */
  route?: string;
  version: string;
  instructions: string;
  tools: readonly ToolDefinition[];
  /** Resources, prompts and completions beyond the tools; or tools registered per request. */
  extend?(server: McpServer, ctx: C): void;
  /** The scopes reading what `extend` registers needs (resources, prompts, completions). */
  extensionScopes?: readonly Scope[];
  /** The scopes a tool needs when the tools are registered per request (the gateway); default: from `tools`. */
  toolScopes?: (name: string) => readonly Scope[] | undefined;
  /** 2026-07-28 cache hints (`ttlMs`, `cacheScope`) for the list results; absent = the SDK's `0` / `private`. */
  cacheHints?: ServerOptions["cacheHints"];
}
