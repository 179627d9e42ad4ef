/**
 * The gateway's hot path (decisions 0013 and 0033), its routing hook (`McpServerDefinition.routeCall`):
 * a plain `tools/call` of a source tool on /mcp from a 2025-06-18 / 2025-11-25 client — one message,
 * nothing but a name and arguments, so no progress token or task — answered without the per-request
 * McpServer, its transport and the catalog queries. It is an optimisation of the one call path,
 * not a second one: the tool comes from the same lookup (SourceCalls.find: owner, enabled, hidden
 * source, hidden tool, alias) and the answer from the same call (SourceCalls.call), whose result the
 * SDK would send unchanged — the call path passes on only results that are (source-call-result.ts),
 * and tools whose output schema root is not an object are left to the SDK before any call. An
 * unknown, hidden, disabled or foreign tool is left to the SDK too, for its own "not found". The
 * pipeline (mcp/pipeline.ts) ran every check first and frames the answer.
 * test/with-upstreams/gateway/call-fast-path.test.ts compares both serving paths' answers.
 */
import type { PlainCall } from "../../mcp/server-definition";
import { failureResult, type ToolContext } from "../../mcp/tool";
import { splitGatewayName } from "../sources/gateway-names";

/** The call's result, serialised, when `call` names a source tool the fast path may call; undefined leaves it to the SDK. */
export async function routeSourceCall(
  call: PlainCall,
  builtins: ReadonlySet<string>,
  ctx: ToolContext,
): Promise<{ resultJson: string } | undefined> {
  if (builtins.has(call.name) || splitGatewayName(call.name) === undefined) return undefined;
  const calls = ctx.services.sourceCalls;
  const target = await calls.find(ctx.user.id, call.name);
  if (!target || target.tool.output === "other") return undefined;
  try {
    const { resultJson } = await calls.call(ctx.user.id, target, call.args);
    return { resultJson };
  } catch (error) {
    return { resultJson: JSON.stringify(failureResult(error, call.name, ctx.user.id)) };
  }
}
