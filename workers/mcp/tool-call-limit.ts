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
 * There is no exception: every call spends one unit of the budget of the user the request
 * authenticated as. A gateway call spends one unit here, on /mcp; its source is another deployment
 * (never this Worker's own origin, decision 0057), which counts its own callers as it chooses.
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
  const units = post.calls.length;
  if (units === 0) return undefined;
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
