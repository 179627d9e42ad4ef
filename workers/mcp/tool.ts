/**
 * How a tool is declared and registered. Tools get a narrow context (user + services), never the
 * raw SDK server, and never catch errors themselves: this wrapper turns any AppError into an
 * `isError` result with a safe message, and logs unexpected ones.
 */
import type { McpServer, ServerContext } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Access } from "../auth/access";
import type { AuthUser } from "../auth/principal";
import { lacking } from "../auth/principal";
import type { Scope } from "../auth/scopes";
import { AppError, retryAfterMs, toAppError } from "../lib/errors";
import type { Services } from "../services";
import { log } from "../lib/log";
import { cachedJsonSchema } from "./schema-cache";

export interface ToolContext {
  user: AuthUser;
  services: Services;
  /** The caller's principal (scopes included) and the request's 403 step-up answer. */
  access: Access;
  /**
   * Set only by mcp/pipeline.ts, when the tool-call budget refused this request's call and the SDK
   * answers the request (one whose framing mcp/refusal-answer.ts leaves to the SDK's own checks):
   * every tool then answers this refusal instead of running (invokeTool, and the gateway's source tools).
   */
  callRefused?: AppError | undefined;
}

/** Where tools/list tells a client which scopes each tool needs. */
export const SCOPES_META_KEY = "mcp-edge/scopes";

/** Per-call facilities from the SDK, narrowed: cancellation and (when the client asked) progress. */
export interface ToolCall {
  signal: AbortSignal;
  /** Present only when the request carried a progressToken. */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface ToolDefinition<I extends AnyObject = AnyObject, O extends AnyObject = AnyObject> {
  name: string;
  title: string;
  /** Written for a model: when to use the tool, what it returns, what its arguments mean. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Every scope a call needs (all of them); never empty. Listed in tools/list `_meta["mcp-edge/scopes"]`. */
  scopes: readonly Scope[];
  /** More of tools/list's `_meta`, beside the scopes: the MCP Apps `ui` key (its app's `resourceUri`, its `visibility`). */
  meta?: Readonly<Record<string, unknown>>;
  run(args: z.output<I>, ctx: ToolContext, call: ToolCall): Promise<{ data: z.output<O>; text: string }>;
}

/**
 * Lets TypeScript infer `run`'s argument and result types from the schemas, then returns the tool
 * as a plain ToolDefinition so tools with different schemas share one list. No cast is needed:
 * `run` is a method, whose parameters TypeScript compares both ways; it is only ever called with
 * the arguments its own `input` parsed (invokeTool).
 */
export function defineTool<I extends AnyObject, O extends AnyObject>(tool: ToolDefinition<I, O>): ToolDefinition {
  assertScoped(tool.name, tool.scopes);
  return tool;
}

/** A tool without scopes could be called by any token: building a server with one fails. */
export function assertScoped(name: string, scopes: readonly Scope[] | undefined): void {
  if (!Array.isArray(scopes) || scopes.length === 0)
    throw new Error(`Tool ${name} declares no scopes: every tool must name the scopes a call needs`);
}

/** Read-only, side-effect-free tools (the common case) */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export function errorResult(error: unknown) {
  const appError = toAppError(error);
  const retryAfter = retryAfterMs(appError);
  return {
    isError: true as const,
    content: [{ type: "text" as const, text: `${appError.code}: ${appError.message}` }],
    _meta: {
      error: {
        code: appError.code,
        ...(retryAfter === undefined ? {} : { retry_after_ms: retryAfter }),
        ...(appError.details ? { details: appError.details } : {}),
      },
    },
  };
}

export function registerTools(server: McpServer, tools: readonly ToolDefinition[], ctx: ToolContext): void {
  for (const tool of tools) {
    assertScoped(tool.name, tool.scopes);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: cachedJsonSchema(tool.input),
        outputSchema: cachedJsonSchema(tool.output),
        annotations: { title: tool.title, ...tool.annotations },
        _meta: { ...tool.meta, [SCOPES_META_KEY]: [...tool.scopes] },
      },
      (args: unknown, sdk: ServerContext) => invokeTool(tool, args, ctx, toolCall(sdk)),
    );
  }
}

/** Runs a tool on validated arguments and shapes its result; the one place tool errors are caught. */
export async function invokeTool(tool: ToolDefinition, args: unknown, ctx: ToolContext, call: ToolCall) {
  if (ctx.callRefused) return errorResult(ctx.callRefused);
  // The scope gate (mcp/scope-gate.ts) answers 403 before any tool runs; this is the second lock.
  const missing = lacking(ctx.access.principal, tool.scopes);
  if (missing.length > 0)
    return errorResult(new AppError("forbidden", `This token does not grant ${missing.join(" ")}, which ${tool.name} needs`));
  try {
    const { data, text } = await tool.run(args as z.output<AnyObject>, ctx, call);
    return { content: [{ type: "text" as const, text }], structuredContent: data as Record<string, unknown> };
  } catch (error) {
    return failureResult(error, tool.name, ctx.user.id);
  }
}

/** A tool that threw: its isError result, and an unexpected error (not an AppError) logged. */
export function failureResult(error: unknown, tool: string, userId: number) {
  const appError = toAppError(error);
  if (appError.code === "internal") log.error("tool failed", { tool, user: userId, cause: String(appError.cause ?? appError) });
  return errorResult(appError);
}

function toolCall(sdk: ServerContext): ToolCall {
  const token = sdk.mcpReq._meta?.progressToken;
  if (token === undefined) return { signal: sdk.mcpReq.signal };
  return {
    signal: sdk.mcpReq.signal,
    progress: (progress, total, message) =>
      sdk.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress, total, message } }),
  };
}
