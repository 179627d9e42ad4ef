/**
 * A call of a sessionful source (a session id, legacy SSE, stdio through the bridge), made by its
 * object over its connections: admitted by the breaker, retried when safe, recorded in the call
 * window. Stateless calls never pass through here: the Worker's isolates call the upstream
 * themselves (calls/stateless-path.ts) and report to the object afterwards.
 */
import { callMcpTool } from "../../mcp-client/connect";
import { isForwardedMethod, requestOverConnection } from "../../mcp-client/upstream-request";
import { isJsonObject } from "../../lib/json";
import { bearerRefusal } from "../authorization/bearer-resource";
import {
  circuitOpenMessage,
  errorOutcome,
  forwardFailure,
  settleCall,
  settleForward,
  type SourceCallOutcome,
} from "../calls/source-call-result";
import { withRetries } from "../calls/upstream-failure";
import type { UpstreamCall, UpstreamCallOutcome, UpstreamConfig, UpstreamForward, UpstreamForwardOutcome } from "../sources/upstream.types";
import type { SourceBreaker } from "./source-breaker";
import type { UpstreamSessions } from "./upstream-sessions";

export interface SessionfulCallDeps {
  breaker: SourceBreaker;
  connections: UpstreamSessions;
}

/** What crosses the RPC of an outcome: the serialised result and its `_meta` (never a connect request). */
function outcomeOf({ resultJson, meta }: SourceCallOutcome): UpstreamCallOutcome {
  return { resultJson, meta };
}

export async function callSessionful(deps: SessionfulCallDeps, config: UpstreamConfig, call: UpstreamCall): Promise<UpstreamCallOutcome> {
  const started = Date.now();
  // Before the breaker: nothing is sent, so the upstream's health is not in question.
  const refused = bearerRefusal(config);
  if (refused) return outcomeOf(errorOutcome(config.slug, "authorization_required", refused, started));
  const admission = deps.breaker.admitCall(started, config.timeoutMs);
  if (!admission.allowed) {
    return outcomeOf(errorOutcome(config.slug, "circuit_open", circuitOpenMessage(config.slug, admission.retryAfterMs), started));
  }
  const args: unknown = JSON.parse(call.argumentsJson);
  const attempt = isJsonObject(args)
    ? await withRetries(
        () => deps.connections.withConnection(config, (open) => callMcpTool(open, call.name, args, config.timeoutMs, call.maxResultBytes)),
        call.idempotent,
      )
    : { failure: { type: "protocol" as const, message: "arguments must be an object", countsAsFailure: false, beforeSend: true } };
  const { outcome, report } = settleCall(config.slug, call, attempt, started, admission.probe);
  deps.breaker.apply(report);
  return outcomeOf(outcome);
}

/** A request beyond tools/call (decision 0068) over the object's connections, on a call's terms; it only reads, so it is retried as idempotent. */
export async function forwardSessionful(
  deps: SessionfulCallDeps,
  config: UpstreamConfig,
  forward: UpstreamForward,
): Promise<UpstreamForwardOutcome> {
  const started = Date.now();
  const refused = bearerRefusal(config);
  if (refused) return forwardFailure(config.slug, "authorization_required", refused, started);
  const admission = deps.breaker.admitCall(started, config.timeoutMs);
  if (!admission.allowed)
    return forwardFailure(config.slug, "circuit_open", circuitOpenMessage(config.slug, admission.retryAfterMs), started);
  const params: unknown = JSON.parse(forward.paramsJson);
  const { method } = forward;
  const attempt =
    isJsonObject(params) && isForwardedMethod(method)
      ? await withRetries(
          () =>
            deps.connections.withConnection(config, (open) =>
              requestOverConnection(open, { method, params }, config.timeoutMs, forward.maxResultBytes),
            ),
          true,
        )
      : { failure: { type: "protocol" as const, message: "params must be an object", countsAsFailure: false, beforeSend: true } };
  const { outcome, report } = settleForward(config.slug, attempt, started, admission.probe);
  deps.breaker.apply(report);
  return outcome;
}
