/**
 * What an MCP server here is — its tools, instructions and extras — and the two hooks a server
 * that varies per request adds (the gateway /mcp): `routeCall` and `prepare`. Every definition is
 * served by the one pipeline (mcp/pipeline.ts), which runs the same checks before either hook; a
 * server needs nothing else of the MCP layer than this interface and mcp/tool.ts.
 */
import type { McpServer, ServerOptions } from "@modelcontextprotocol/server";
import type { Scope } from "../auth/scopes";
import type { OwnSkills } from "./own-skills";
import type { McpMessage, McpPost, PlainCall } from "./post";
import type { RequestRefusal } from "./refusal";
import type { ToolContext, ToolDefinition } from "./tool";

export type { McpPost, PlainCall } from "./post";
export type { RequestRefusal } from "./refusal";

/** What the SDK path knows of the request a server is built for, before the SDK reads it. */
export interface SdkRequestFacts {
  /**
   * Every message is a tools/list or tools/call: what serves nothing else (skills, decision 0072)
   * need not be registered, so those hot paths pay nothing for it. False when the body is unknown.
   */
  toolsOnly: boolean;
}

/** What `prepare` found for one request: what `extend` registers, and how to finish the SDK's answer. */
export interface RequestState<S> {
  state: S;
  /** Rewrites the SDK's answer (the gateway adds a tools/list page's `nextCursor`); absent = sent as it is. */
  finish?: (response: Response) => Promise<Response>;
}

/**
 * `S` is the per-request state `prepare` computes and `extend` reads (the gateway's catalog of the
 * user's tools); a server without `prepare` has none, and `extend` then gets undefined.
 */
export interface McpServerDefinition<S = unknown> {
  /** Mounted at /mcp/<name>. */
  name: string;
  /** Where the SDK handler answers, when not /mcp/<name> (the gateway serves /mcp itself). */
  route?: string;
  version: string;
  instructions: string;
  tools: readonly ToolDefinition[];
  /**
   * Resources, prompts and completions beyond the tools; or tools registered per request from `state`.
   * `request` is absent when the server is built to read its capabilities (`capabilitiesOf`).
   */
  extend?(server: McpServer, ctx: ToolContext, state: S | undefined, request?: SdkRequestFacts): void;
  /**
   * The skills it serves, attached per request by mcp/hosting.ts (not for a tools-only request);
   * the gateway /mcp serves every built-in server's too, beside its sources' (decision 0072).
   */
  skills?: OwnSkills;
  /** The scopes reading what `extend` registers needs (resources, prompts, completions). */
  extensionScopes?: readonly Scope[];
  /**
   * What `extend` registers, by name: the prefixes of its resource URIs and templates, and its
   * prompts. The gateway /mcp serves every built-in's beside the others', and finds by these which
   * server's `extensionScopes` a read, a prompt or a completion needs.
   */
  extensionNames?: { uriPrefixes: readonly string[]; prompts: readonly string[] };
  /**
   * The same per message, when it depends on what the message names (the gateway: a source's
   * resource or prompt needs other scopes than a built-in server's); undefined: `extensionScopes`.
   */
  extensionScopesOf?: (message: McpMessage) => readonly Scope[] | undefined;
  /** The scopes a tool needs when the tools are registered per request (the gateway); default: from `tools`. */
  toolScopes?: (name: string) => readonly Scope[] | undefined;
  /** 2026-07-28 cache hints (`ttlMs`, `cacheScope`) for the list results; absent = the SDK's `0` / `private`. */
  cacheHints?: ServerOptions["cacheHints"];
  /**
   * Answers a plain tools/call (one message of a 2025-06-18 / 2025-11-25 request, nothing but a name
   * and arguments: `PlainCall`) without the SDK, once every check passed: the call's result,
   * serialised, exactly as the SDK would send it (the pipeline frames it); undefined leaves the call
   * to the SDK. A server with this hook is answered by it instead of the built-in fast path
   * (mcp/fast-path.ts); the gateway's answers a call of a source's tool (gateway/calls/call-fast-path.ts).
   */
  routeCall?(call: PlainCall, ctx: ToolContext): Promise<{ resultJson: string } | undefined>;
  /**
   * On the SDK path only, after the checks and the fast paths: what this request may reach (its
   * `state`), or a refusal of it (the gateway: a tools/list cursor it did not issue). A server with
   * `prepare` lists its tools per request, so the built-in fast path never answers its tools/list
   * from the listing it keeps per isolate (decision 0006).
   */
  prepare?(post: McpPost, ctx: ToolContext): Promise<RequestState<S> | RequestRefusal>;
}
