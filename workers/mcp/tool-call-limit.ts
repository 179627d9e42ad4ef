/**
 * The per-user tool-call rate limit on every MCP endpoint. It runs once per POST, after the
 * envelope, params and scope checks and before any serving path — the SDK, the fast path and a
 * server's routing hook — so none of them can run a call the budget refused. Each tools/call
 * request spends one unit; a 2025-03-26 batch spends one per call. Nothing else (initialize,
 * tools/list, resources, prompts, ping, notifications) is counted.
 *
 * A refused call answers what a failing tool answers: an `isError` result whose `_meta.error`
 * carries the code `rate_limited` and `retry_after_ms`. Clients hand tool errors to the model,
 * which can wait or tell the user; a JSON-RPC error or an HTTP 429 ends the call as a failure the
 * model usually never sees (decision 0029). mcp/refusal-answer.ts frames it for the request's
 * protocol revision.
 *
 * One call is one unit across the gateway's hop to this same Worker: a source on the Worker's own
 * origin is reached through SELF, and that request authenticates with the source's credentials and
 * passes here again. When it arrived marked by the gateway as counted for the user it authenticated
 * as (`ctx.toolCallCountedFor`, set only by the SelfCalls entry point: http/self-call.ts), its one
 * call is not spent again; credentials of another user spend that user's unit, as any call of theirs.
 *
 * A refused batch is refused whole — HTTP 429, `Retry-After` and one JSON-RPC error (id null) —
 * and nothing in it runs; a batch cannot be answered partly by the SDK and partly here.
 */
import { type AppError, retryAfterMs } from "../lib/errors";
import type { Check } from "./check";
import type { Refusal } from "./refusal";

/** JSON-RPC's range for implementation-defined server errors; MCP defines none for rate limits. */
const RATE_LIMITED_RPC_CODE = -32000;

export const callBudget: Check = async (post, { ctx }) => {
  // The gateway's hop to this same Worker: the one call it carries already spent this user's unit.
  const units = ctx.toolCallCountedFor === ctx.user.id ? post.calls.length - 1 : post.calls.length;
  if (units <= 0) return undefined;
  const refusal = await ctx.services.rateLimits.spend("tool_calls", ctx.user.id, units);
  if (!refusal) return undefined;
  const [call] = post.calls;
  return post.batch || call === undefined ? refusedBatch(refusal) : { kind: "call", call, error: refusal };
};

function refusedBatch(refusal: AppError): Refusal {
  const retryAfter = retryAfterMs(refusal) ?? 0;
  return {
    kind: "error",
    id: null,
    status: 429,
    headers: { "retry-after": String(Math.max(1, Math.ceil(retryAfter / 1000))) },
    error: {
      code: RATE_LIMITED_RPC_CODE,
      message: refusal.message,
      data: { code: refusal.code, retry_after_ms: retryAfter, ...refusal.details },
    },
  };
}
