/**
 * What a call of a source's tool answers, built the same way on both call paths: the upstream's
 * result with `_meta` {source, execution_time_ms[, error_type]} merged in, or a typed error result
 * (`<type>: <message>`). Also the one rule on results the gateway passes on: structuredContent is
 * an object, and present when the tool declares an object output schema (a tool whose output
 * schema root is not an object is the SDK path's to shape, see gateway.server.ts). A result that
 * breaks the rule is a typed `protocol` error, so no path reshapes an upstream's answer on its own.
 * The answers no upstream gave are here too: `authorization_required` with the link to connect,
 * and the refusal of a tool held for its owner's approval (decision 0049).
 *
 * The gateway's vocabulary is the gateway's (decision 0051): an upstream's result loses the `_meta`
 * keys the gateway writes or reads (GATEWAY_META_KEYS, and any `mcp-edge/` key) and the 2026-07-28
 * multi-round-trip fields (INPUT_REQUIRED_KEYS), so nothing an upstream answers can pass for the
 * gateway's own outcome or make /mcp ask the client for input.
 */
import { AppError } from "../../lib/errors";
import { isJsonObject, type JsonObject } from "../../lib/json";
import { gatewayName } from "../sources/gateway-names";
import { type AuthorizationNeeded, authorizationMessage } from "../authorization/upstream-authorization";
import type { UpstreamFailure } from "./upstream-failure";
import { breakerEffect } from "./upstream-failure";
import type { UpstreamAnswer } from "../../mcp-client/upstream-request";
import type {
  CallReport,
  ConnectRequest,
  OutputKind,
  UpstreamCallMeta,
  UpstreamErrorType,
  UpstreamForwardOutcome,
} from "../sources/upstream.types";

export interface SourceCallOutcome {
  /** The tools/call result as the client gets it. */
  result: JsonObject;
  /** `result` serialised once: the fast path sends it as it is. */
  resultJson: string;
  meta: UpstreamCallMeta;
  /**
   * Set only by SourceCalls on its own `authorization_required` outcome: the one answer /mcp may
   * turn into a URL elicitation (connect-elicitation.ts). Never crosses the Durable Object's RPC.
   */
  connect?: ConnectRequest | undefined;
}

/** The `_meta` keys the gateway writes on a call's result (UpstreamCallMeta, `authorization`). */
export const GATEWAY_META_KEYS: ReadonlySet<string> = new Set([
  "source",
  "execution_time_ms",
  "error_type",
  "required_scope",
  "authorization",
]);
/** The gateway's own `_meta` namespace (`mcp-edge/scopes` …). */
const GATEWAY_META_PREFIX = "mcp-edge/";
/** A 2026-07-28 result carrying these asks the client for input: only the gateway may ask. */
const INPUT_REQUIRED_KEYS: ReadonlySet<string> = new Set(["resultType", "inputRequests", "requestState"]);

/** The upstream's `_meta` without the gateway's keys; undefined when nothing is left. */
function upstreamMeta(meta: unknown): JsonObject | undefined {
  if (!isJsonObject(meta)) return undefined;
  const kept = Object.entries(meta).filter(([key]) => !GATEWAY_META_KEYS.has(key) && !key.startsWith(GATEWAY_META_PREFIX));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export function circuitOpenMessage(slug: string, retryAfterMs: number): string {
  return `source ${slug} is failing; its circuit breaker is open — retry in ${Math.ceil(retryAfterMs / 1000)} s`;
}

export function errorOutcome(
  source: string,
  type: UpstreamErrorType,
  message: string,
  started: number,
  requiredScope?: string,
): SourceCallOutcome {
  const meta: UpstreamCallMeta = { source, execution_time_ms: Date.now() - started, error_type: type };
  if (requiredScope !== undefined) meta.required_scope = requiredScope;
  const result = { isError: true, content: [{ type: "text", text: `${type}: ${message}` }], _meta: meta };
  return { result, resultJson: JSON.stringify(result), meta };
}

/** The upstream's own result, `isError` included (typed `tool_error`), in the gateway's words only. */
export function resultOutcome(source: string, upstream: JsonObject, started: number): SourceCallOutcome {
  const meta: UpstreamCallMeta = { source, execution_time_ms: Date.now() - started };
  if (upstream["isError"] === true) meta.error_type = "tool_error";
  const fields = Object.entries(upstream).filter(([key]) => key !== "_meta" && !INPUT_REQUIRED_KEYS.has(key));
  // A result without content gets the empty list, as the SDK's server would give it (2025 results require one).
  const result = {
    ...Object.fromEntries(fields),
    ...(upstream["content"] === undefined ? { content: [] } : {}),
    _meta: { ...upstreamMeta(upstream["_meta"]), ...meta },
  };
  return { result, resultJson: JSON.stringify(result), meta };
}

/** Why `result` breaks the rule above for a tool with `output`, or undefined when it keeps it. */
export function resultProblem(tool: string, result: JsonObject, output: OutputKind): string | undefined {
  const structured = result["structuredContent"];
  if (structured !== undefined && !isJsonObject(structured) && output !== "other") {
    return `upstream tool ${tool} returned structuredContent that is not an object`;
  }
  if (output === "object" && structured === undefined && result["isError"] !== true) {
    return `upstream tool ${tool} has an output schema but returned no structured content`;
  }
  return undefined;
}

/**
 * How a call ended, whichever path made it: the outcome the client gets, the failure it counts as
 * (a result breaking the rule above is a `protocol` failure that does not count against the
 * breaker: the upstream answered), and the record for the breaker and the call window.
 */
export function settleCall(
  source: string,
  tool: { name: string; output: OutputKind },
  attempt: { value: JsonObject } | { failure: UpstreamFailure },
  started: number,
  probe: boolean,
): { outcome: SourceCallOutcome; report: CallReport } {
  let failure = "failure" in attempt ? attempt.failure : undefined;
  if ("value" in attempt) {
    const problem = resultProblem(tool.name, attempt.value, tool.output);
    if (problem) failure = { type: "protocol", message: problem, countsAsFailure: false, beforeSend: false };
  }
  const outcome =
    failure || !("value" in attempt)
      ? errorOutcome(source, failure!.type, failure!.message, started, failure!.requiredScope)
      : resultOutcome(source, attempt.value, started);
  return { outcome, report: callReport(started, outcome.meta.execution_time_ms, failure, probe) };
}

/** The `_meta.authorization` of an `authorization_required` result: what a client needs to send the user on. */
export interface AuthorizationRequired {
  state: AuthorizationNeeded["state"];
  /** Open in a browser signed in to mcp-edge: it connects the account and comes back. */
  url: string | null;
  scope: string | null;
}

/** The typed `authorization_required` error result of a call, carrying the link to connect. */
export function authorizationOutcome(
  slug: string,
  needed: AuthorizationNeeded,
  url: string | undefined,
  started: number,
): SourceCallOutcome {
  const authorization: AuthorizationRequired = { state: needed.state, url: url ?? null, scope: needed.scope ?? null };
  const meta: UpstreamCallMeta = { source: slug, execution_time_ms: Date.now() - started, error_type: "authorization_required" };
  const result = {
    isError: true,
    content: [{ type: "text", text: `authorization_required: ${authorizationMessage(slug, needed, url)}` }],
    _meta: { ...meta, authorization: { ...authorization } },
  };
  return { result, resultJson: JSON.stringify(result), meta };
}

/** A held tool's call: refused before anything is sent upstream, saying why and how its owner approves it. */
export function heldToolRefusal(source: { id: number; slug: string }, tool: { alias: string }): AppError {
  const name = gatewayName(source.slug, tool.alias);
  const approve = `/api/sources/${source.id}/changes/approve`;
  return new AppError(
    "conflict",
    `${name} is held: its definition changed upstream, or it is new, since you approved this source's tools, so it is not ` +
      `called until you approve it — in the console's Gateway sources, or with POST ${approve} ` +
      `(GET /api/sources/${source.id}/changes shows what changed)`,
    { details: { reason: "tool_definition_held", tool: name, source_id: source.id, approve } },
  );
}

/** A forwarded request's answer in the gateway's words only: no multi-round-trip fields (only the gateway may ask for input). */
function forwardedAnswer(answer: UpstreamAnswer): UpstreamAnswer {
  if ("error" in answer) return answer;
  return { result: Object.fromEntries(Object.entries(answer.result).filter(([key]) => !INPUT_REQUIRED_KEYS.has(key))) };
}

/** The record of one call or forwarded request for the breaker and the call window, whichever it was. */
function callReport(started: number, ms: number, failure: UpstreamFailure | undefined, probe: boolean): CallReport {
  return { at: started, ms, error: failure ? `${failure.type}: ${failure.message}` : null, breaker: breakerEffect(failure), probe };
}

/** A forwarded request refused or failed before any answer came (circuit open, URL refused, no token …). */
export function forwardFailure(source: string, type: UpstreamErrorType, message: string, started: number): UpstreamForwardOutcome {
  return { answerJson: null, meta: { source, execution_time_ms: Date.now() - started, error_type: type }, failure: `${type}: ${message}` };
}

/**
 * How a forwarded request ended, whichever path made it: the upstream's answer (a JSON-RPC error
 * answer proves the upstream alive, as for a tool), or the failure it counts as; and the record
 * for the breaker and the call window.
 */
export function settleForward(
  source: string,
  attempt: { value: UpstreamAnswer } | { failure: UpstreamFailure },
  started: number,
  probe: boolean,
): { outcome: UpstreamForwardOutcome; report: CallReport } {
  const failure = "failure" in attempt ? attempt.failure : undefined;
  const outcome =
    "value" in attempt
      ? {
          answerJson: JSON.stringify(forwardedAnswer(attempt.value)),
          meta: { source, execution_time_ms: Date.now() - started },
          failure: null,
        }
      : forwardFailure(source, attempt.failure.type, attempt.failure.message, started);
  if (failure?.requiredScope !== undefined) outcome.meta.required_scope = failure.requiredScope;
  return { outcome, report: callReport(started, outcome.meta.execution_time_ms, failure, probe) };
}
