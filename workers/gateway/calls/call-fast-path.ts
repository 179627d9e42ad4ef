/**
 * The gateway's hot path (decisions 0013 and 0033): a single plain `tools/call` of a source tool
 * on /mcp from a 2025-06-18 / 2025-11-25 client, answered without the per-request McpServer, its
 * transport and the catalog queries. It is an optimisation of the one call path, not a second
 * one: the tool comes from the same lookup (SourceCalls.find: owner, enabled, hidden source,
 * hidden tool, alias) and the answer from the same call (SourceCalls.call), whose result the SDK
 * would send unchanged — the call path passes on only results that are (source-call-result.ts),
 * and tools whose output schema root is not an object are left to the SDK before any call.
 * An unknown, hidden, disabled or foreign tool is left to the SDK too, for its own "not found".
 * test/gateway/call-fast-path.test.ts compares both serving paths' answers.
 */
import { isJsonObject, type JsonObject } from "../../lib/json";
import { isRequestId } from "../../mcp/envelope";
import { failureResult, type ToolContext } from "../../mcp/tool";
import { splitGatewayName } from "../sources/gateway-names";
import type { CallableTool } from "../sources/sources.repo";

export interface SourceCall {
  id: string | number;
  name: string;
  args: JsonObject;
}

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

function jsonRpc(id: string | number, resultJson: string): Response {
  return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`, {
    headers: { "content-type": "application/json" },
  });
}

/** Calls the tool `SourceCalls.find` returned for this user and sends the result as the JSON-RPC answer. */
export async function answerSourceCall(call: SourceCall, target: CallableTool, ctx: ToolContext): Promise<Response> {
  try {
    const { resultJson } = await ctx.services.sourceCalls.call(ctx.user.id, target, call.args);
    return jsonRpc(call.id, resultJson);
  } catch (error) {
    return jsonRpc(call.id, JSON.stringify(failureResult(error, call.name, ctx.user.id)));
  }
}
