/**
 * The gateway's hot path (decision 0013): a single plain `tools/call` of a source tool on /mcp
 * from a 2025-06-18 / 2025-11-25 client, answered without the per-request McpServer, the
 * inventory and the hidden-built-ins queries. `SourceService.callTarget` still enforces owner,
 * enabled, hidden source and hidden tool in its one indexed lookup; nothing is cached across
 * requests except the opened upstream config (keyed by everything it is made of).
 *
 * The SDK stays the protocol authority: an unknown, hidden, disabled or foreign tool is left to
 * it (its own "Tool … not found" wording), and so is any result the SDK would reshape or reject
 * (structuredContent that is not an object, an output schema whose root is not an object, a
 * missing structuredContent for a tool that declares one, a malformed result). Those come back as
 * a `replay`: the SDK path serves the request with the outcome already obtained, so the upstream
 * is never called twice. test/gateway/call-fast-path.test.ts compares both paths' answers.
 */
import { type CallToolResult, isCallToolResult } from "@modelcontextprotocol/server";
import { toAppError } from "../lib/errors";
import { isJsonObject, type JsonObject } from "../lib/json";
import { log } from "../lib/log";
import { isRequestId } from "../mcp/envelope";
import { errorResult, type ToolContext } from "../mcp/tool";
import type { CallTarget } from "./sources.repo";
import { splitGatewayName } from "./source-views";
import type { UpstreamCallOutcome } from "./upstream.types";


export interface SourceCall {
  id: string | number;
  name: string;
  args: JsonObject;
}

/** A call already made, for the SDK path to answer in its own words. */
export interface Replay {
  name: string;
  outcome: UpstreamCallOutcome;
}

export type SourceCallAnswer = { response: Response } | { replay: Replay } | undefined;

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAM_KEYS = new Set(["name", "arguments"]);

/**
 * The call, if `body` is one the fast path may answer: one JSON-RPC request, `tools/call`, params
 * of nothing but `name` and `arguments` (no `_meta`, so no progress token or task), a name that is
 * not a built-in and splits as `<slug>__<alias>`, and arguments that are an object or absent
 * (the SDK treats absent as `{}`). Headers are checked by the caller (`fastPathVersion`).
 */
export function asSourceCall(body: unknown, builtins: ReadonlySet<string>): SourceCall | undefined {
  if (!isJsonObject(body) || body["jsonrpc"] !== "2.0" || body["method"] !== "tools/call") return undefined;
  if (Object.keys(body).some((key) => !MESSAGE_KEYS.has(key))) return undefined;
  const id = body["id"];
  if (!isRequestId(id)) return undefined;
  const params = body["params"];
  if (!isJsonObject(params) || Object.keys(params).some((key) => !PARAM_KEYS.has(key))) return undefined;
  const name = params["name"];
  if (typeof name !== "string" || builtins.has(name) || splitGatewayName(name) === undefined) return undefined;
  const args = params["arguments"] ?? {};
  return isJsonObject(args) ? { id, name, args } : undefined;
}

/** A source call that threw (e.g. the DO RPC failed): the isError result both paths answer. */
export function callFailure(error: unknown, tool: string, userId: number): CallToolResult {
  const appError = toAppError(error);
  if (appError.code === "internal") log.error("gateway call failed", { tool, user: userId, cause: String(appError.cause ?? appError) });
  return errorResult(appError);
}

function jsonRpc(id: string | number, resultJson: string): Response {
  return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`, {
    headers: { "content-type": "application/json" },
  });
}

/**
 * Whether the SDK would send `result` exactly as it is: it validates structuredContent only
 * against an output schema (the gateway's check: an object), and reshapes only non-object
 * structuredContent or non-object output schemas.
 */
function sentAsIs(result: unknown, output: CallTarget["tool"]["output"]): boolean {
  if (!isCallToolResult(result)) return false;
  const structured = result.structuredContent;
  if (structured !== undefined && !isJsonObject(structured)) return false;
  if (output === "other") return false;
  return output === "none" || result.isError === true || structured !== undefined;
}

/**
 * Runs the call, or returns undefined when the tool is not callable for this user (the SDK path
 * then answers "not found" as it always did).
 */
export async function answerSourceCall(call: SourceCall, ctx: ToolContext): Promise<SourceCallAnswer> {
  const sources = ctx.services.sources;
  const target = await sources.callTarget(ctx.user.id, call.name);
  if (!target) return undefined;
  let outcome: UpstreamCallOutcome;
  try {
    outcome = await sources.callResolved(ctx.user.id, target, call.args);
  } catch (error) {
    return { response: jsonRpc(call.id, JSON.stringify(callFailure(error, call.name, ctx.user.id))) };
  }
  if (sentAsIs(JSON.parse(outcome.resultJson), target.tool.output)) return { response: jsonRpc(call.id, outcome.resultJson) };
  return { replay: { name: call.name, outcome } };
}
