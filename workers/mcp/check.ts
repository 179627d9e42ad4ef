/** The shape of one check of the MCP pipeline; the checks and their order are in mcp/pipeline.ts. */
import type { McpPost } from "./post";
import type { Refusal } from "./refusal";
import type { McpServerDefinition } from "./server-definition";
import type { ToolContext } from "./tool";

export interface CheckContext {
  /** The server of the endpoint the request arrived at. */
  definition: McpServerDefinition;
  /** Who calls (user, access) and the request's services. */
  ctx: ToolContext;
}

/** Reads the classified post (never the raw body) and refuses it, or lets it on (undefined). */
export type Check = (post: McpPost, context: CheckContext) => Refusal | undefined | Promise<Refusal | undefined>;
