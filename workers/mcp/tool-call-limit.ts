/**
 * The per-user tool-call rate limit on every MCP endpoint. It runs once per POST, after the
 * envelope, params and scope checks and before any serving path — the SDK, the fast path and the
 * gateway's call fast path — so none of them can run a call the budget refused. Each tools/call
 * request counts one unit; a 2025-03-26 batch counts each of its calls. Nothing else (initialize,
 * tools/list, resources, prompts, ping, notifications) is counted.
 *
 * A refused call answers what a failing tool answers: an `isError` result whose `_meta.error`
 * carries the code `rate_limited` and `retry_after_ms`. Clients hand tool errors to the model,
 * which can wait or tell the user; a JSON-RPC error or an HTTP 429 ends the call as a failure the
 * model usually never sees (decision 0029). The SDK itself answers it, from a server whose only
 * tool is a stand-in of the called name that throws the refusal, so every protocol revision gets
 * its own framing (the 2026-07-28 result fields, its header checks, SSE or JSON).
 *
 * There is no exception: every call spends one unit of the budget of the user the request
 * authenticated as. A gateway call spends one unit here, on /mcp; its source is another deployment
 * (never this Worker's own origin, decision 0057), which counts its own callers as it chooses.
 *
 * A refused batch is refused whole — HTTP 429, `Retry-After` and one JSON-RPC error (id null) —
 * and nothing in it runs; a batch cannot be answered partly by the SDK and partly here.
 */
import * as z from "zod";
import type { Scope } from "../auth/scopes";
import { type AppError, retryAfterMs } from "../lib/errors";
import { isJsonObject } from "../lib/json";
import { isRequestId } from "./envelope";
import { toolScopes } from "./scope-gate";
import type { McpServerDefinition } from "./server-definition";
import { registerTools, type ToolContext, type ToolDefinition } from "./tool";

/** Serves a request with the SDK alone (mcp/hosting.ts#serveWithSdk), passed in to keep imports one-way. */
export type SdkServe = (request: Request, definition: McpServerDefinition, ctx: ToolContext, parsedBody: unknown) => Promise<Response>;

/** JSON-RPC's range for implementation-defined server errors; MCP defines none for rate limits. */
const RATE_LIMITED_RPC_CODE = -32000;

/** The names of the tools/call requests (not notifications) in a parsed body, one per call. */
function calledNames(body: unknown): string[] {
  return (Array.isArray(body) ? body : [body]).flatMap((message) => {
    if (!isJsonObject(message) || message["method"] !== "tools/call" || !isRequestId(message["id"])) return [];
    const params = message["params"];
    const name = isJsonObject(params) ? params["name"] : undefined;
    // A call without a string name never gets here (mcp/spec-params.ts answers -32602); it would still count.
    return [typeof name === "string" ? name : ""];
  });
}

/**
 * Spends the caller's tool-call budget for every call in `body`; the answer to send instead of
 * serving it when the budget refused one, else undefined. `forward` makes the request to answer
 * (the body re-attached), called only for a refusal.
 */
export async function refuseOverLimit(
  body: unknown,
  forward: () => Request,
  definition: McpServerDefinition,
  ctx: ToolContext,
  serve: SdkServe,
): Promise<Response | undefined> {
  const names = calledNames(body);
  if (names.length === 0) return undefined;
  const refusal = await ctx.services.rateLimits.spend("tool_calls", ctx.user.id, names.length);
  if (!refusal) return undefined;
  if (Array.isArray(body)) return refusedBatch(refusal);
  const name = names[0] ?? "";
  const refusalCtx: ToolContext = { user: ctx.user, services: ctx.services, access: ctx.access };
  refusedCalls.set(refusalCtx, { name, scopes: toolScopes(definition, name), refusal });
  return serve(forward(), refusingDefinition(definition), refusalCtx, body);
}

function refusedBatch(refusal: AppError): Response {
  const retryAfter = retryAfterMs(refusal) ?? 0;
  const error = { code: RATE_LIMITED_RPC_CODE, message: refusal.message, data: { code: refusal.code, retry_after_ms: retryAfter, ...refusal.details } };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error }), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": String(Math.max(1, Math.ceil(retryAfter / 1000))) },
  });
}

interface RefusedCall {
  name: string;
  /** The called tool's scopes; undefined for a name the server does not serve (the SDK then answers "not found"). */
  scopes: readonly Scope[] | undefined;
  refusal: AppError;
}

/** Each refused request's call, keyed by the context object made for that request alone. */
const refusedCalls = new WeakMap<ToolContext, RefusedCall>();
const refusingDefinitions = new WeakMap<McpServerDefinition, McpServerDefinition>();

/** Takes any arguments: a refused call is refused whatever it carries. Module constants, so their JSON Schema is computed once (schema-cache.ts). */
const anyArguments = z.looseObject({});
const noOutput = z.object({});

/** The stand-in: same name and scopes as the called tool, and all it does is throw the refusal. */
function standIn(name: string, scopes: readonly Scope[], refusal: AppError): ToolDefinition {
  return {
    name,
    title: name,
    description: "Refused: over the caller's tool-call rate limit.",
    input: anyArguments,
    output: noOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scopes,
    run: () => Promise.reject(refusal),
  };
}

/** The server a refused call is answered by: the real server's name, version and instructions, and only the stand-in. */
function refusingDefinition(definition: McpServerDefinition): McpServerDefinition {
  let refusing = refusingDefinitions.get(definition);
  if (!refusing) {
    refusing = {
      name: definition.name,
      route: definition.route ?? `/mcp/${definition.name}`,
      version: definition.version,
      instructions: definition.instructions,
      ...(definition.cacheHints ? { cacheHints: definition.cacheHints } : {}),
      tools: [],
      extend: (server, ctx) => {
        const call = refusedCalls.get(ctx);
        if (call?.scopes) registerTools(server, [standIn(call.name, call.scopes, call.refusal)], ctx);
      },
    };
    refusingDefinitions.set(definition, refusing);
  }
  return refusing;
}
