/**
 * The MCP request pipeline: how every MCP endpoint — each /mcp/<server> and the gateway /mcp —
 * serves a request, in order. This is the one file that says it; a server only supplies its
 * definition (mcp/server-definition.ts), hooks included.
 *
 *   POST ─▶ readPost (mcp/post.ts): the body read and classified once; every step below reads that
 *        ─▶ the request's MCP client noted for the audit and the telemetry (mcp/client-facts.ts)
 *        ─▶ CHECKS, in order: the first refusal is answered (mcp/refusal-answer.ts) and nothing runs
 *        ─▶ a plain 2025-06-18 / 2025-11-25 request (`post.fastRevision`): the server's `routeCall`
 *           hook if it has one (the gateway's source calls), else the built-in fast path
 *           (mcp/fast-path.ts); either may leave the request to the SDK
 *        ─▶ the SDK (mcp/hosting.ts), with what the server's `prepare` found for the request
 *   any other method, or a body that is not JSON ─▶ the SDK, which answers it in its own words
 *
 * Authentication, the Origin check and the body limit run before this, in the HTTP middleware.
 */
import type { Check } from "./check";
import { mcpClientFacts } from "./client-facts";
import { envelope } from "./envelope";
import { framedResult } from "../telemetry/mcp-request";
import { answerFast, type FastAnswer } from "./fast-path";
import { serveWithSdk } from "./hosting";
import { jsonRpcResultJson } from "./json-rpc";
import { forwardPost, type McpPost, readPost } from "./post";
import { answerRefusal, answerRefusedCall } from "./refusal-answer";
import { scopes } from "./scope-gate";
import type { McpServerDefinition } from "./server-definition";
import { specParams } from "./spec-params";
import type { ToolContext } from "./tool";
import { callBudget } from "./tool-call-limit";

/** Every check of every MCP endpoint, in the order they run. */
export const CHECKS: readonly Check[] = [
  // JSON-RPC envelope: numeric ids JSON carries exactly, no batches from 2025-06-18 on (decision 0026). 400, id null.
  envelope,
  // Params of the spec methods the server serves, against the SDK's own schemas: -32602 (the SDK answers -32603).
  specParams,
  // Every scope the request's calls, resources and prompts need: 403 with the step-up challenge (decision 0022).
  scopes,
  // The user's tool-call budget, one unit per tools/call (decision 0029): an isError result; a batch is refused whole, 429.
  // Last, so a request another check refuses spends nothing.
  callBudget,
];

export interface ServeOptions {
  /** false: the SDK alone, no fast path or routing hook — what the fast-path tests compare with. */
  fastPaths?: boolean;
}

/** Serves one request to an MCP endpoint. */
export async function serveMcp<S>(
  request: Request,
  definition: McpServerDefinition<S>,
  ctx: ToolContext,
  options: ServeOptions = {},
): Promise<Response> {
  if (request.method !== "POST") return serveWithSdk(request, definition, ctx);
  return servePost(await readPost(request), definition, ctx, options);
}

async function servePost<S>(post: McpPost, definition: McpServerDefinition<S>, ctx: ToolContext, options: ServeOptions): Promise<Response> {
  if (post.body === undefined) return serveWithSdk(forwardPost(post), definition, ctx);
  noteClient(post, ctx);
  for (const check of CHECKS) {
    const refusal = await check(post, { definition, ctx });
    if (refusal?.kind === "call") {
      // A refused call the SDK must check first: its tool answers the refusal if the SDK serves it.
      return answerRefusedCall(refusal, post, definition) ?? serveBySdk(post, definition, { ...ctx, callRefused: refusal.error });
    }
    if (refusal?.kind === "error") ctx.services.mcpRequest.answered({ error: refusal.error });
    if (refusal) return answerRefusal(refusal);
  }
  if (options.fastPaths !== false && post.fastRevision !== undefined) {
    const fast = await answerPlain(post, post.fastRevision, definition, ctx);
    if (fast) return fast;
  }
  return serveBySdk(post, definition, ctx);
}

/** Who sent the request, for every call the audit records after (decision 0060) and the request's data point (0064). */
function noteClient(post: McpPost, ctx: ToolContext): void {
  const client = mcpClientFacts(post.body, post.request, ctx.access.principal);
  ctx.services.toolCallAudit.identify(client);
  ctx.services.mcpRequest.learn(post.messages, client);
}

/**
 * A plain 2025-era request: the server's routing hook, or the built-in fast path for a server whose
 * tools never vary. The answer is framed here, and its outcome told to the request's telemetry.
 */
async function answerPlain<S>(
  post: McpPost,
  revision: string,
  definition: McpServerDefinition<S>,
  ctx: ToolContext,
): Promise<Response | undefined> {
  const answer = await plainAnswer(post, revision, definition, ctx);
  if (!answer) return undefined;
  ctx.services.mcpRequest.answered(framedResult(answer.resultJson, post.calls.length > 0));
  return jsonRpcResultJson(answer.id, answer.resultJson);
}

async function plainAnswer<S>(
  post: McpPost,
  revision: string,
  definition: McpServerDefinition<S>,
  ctx: ToolContext,
): Promise<FastAnswer | undefined> {
  if (definition.routeCall) {
    const call = post.batch ? undefined : post.calls[0]?.plain;
    const routed = call && (await definition.routeCall(call, ctx));
    return call && routed && { id: call.id, resultJson: routed.resultJson };
  }
  return definition.prepare ? undefined : answerFast(post, revision, definition, ctx);
}

async function serveBySdk<S>(post: McpPost, definition: McpServerDefinition<S>, ctx: ToolContext): Promise<Response> {
  const prepared = definition.prepare ? await definition.prepare(post, ctx) : undefined;
  if (prepared && "kind" in prepared) return answerRefusal(prepared);
  const serving = { parsedBody: post.body, ...(prepared ? { state: prepared.state } : {}) };
  const response = await serveWithSdk(forwardPost(post), definition, ctx, serving);
  return prepared?.finish ? prepared.finish(response) : response;
}
