/**
 * A call of a stateless source, made from the Worker's isolate: one HTTP request to the upstream
 * (workers/mcp-client/stateless-call.ts), no Durable Object on the way. The breaker is consulted
 * through this isolate's view of it and the call reported to the source's object after the
 * answer (breaker-view.ts). Retries, timeouts, typed errors, `_meta`, the URL re-check and the
 * bound on the answer's bytes are the sessionful path's, from the same modules; so is the refusal to
 * send an upstream OAuth token to a URL its resource does not cover (bearer-resource.ts).
 */
import type { FetchLike } from "../../mcp-client/connect";
import { callStatelessTool, requestStateless } from "../../mcp-client/stateless-call";
import type { ForwardedRequest } from "../../mcp-client/upstream-request";
import { bearerRefusal } from "../authorization/bearer-resource";
import { probeLeaseMs } from "./breaker";
import type { BreakerView, SourceObject } from "./breaker-view";
import { circuitOpenMessage, errorOutcome, forwardFailure, settleCall, settleForward, type SourceCallOutcome } from "./source-call-result";
import { GATEWAY_CLIENT_NAME, upstreamEndpoint } from "./upstream-connection";
import { checkUpstreamUrl, withRetries } from "./upstream-failure";
import type { OutputKind, UpstreamConfig, UpstreamForwardOutcome } from "../sources/upstream.types";

export interface StatelessDeps {
  fetch: FetchLike;
  breakers: BreakerView;
  object: () => SourceObject;
  waitUntil: (promise: Promise<unknown>) => void;
}

export interface StatelessTarget {
  name: string;
  args: Record<string, unknown>;
  idempotent: boolean;
  output: OutputKind;
  /** Negotiated at discovery. */
  protocolVersion: string;
  /** A 2026-07-28 upstream's stored `server/discover` result. */
  discover: Record<string, unknown> | undefined;
  /** The most bytes the answer may have (GATEWAY_MAX_RESULT_BYTES), counted while it streams in. */
  maxResultBytes: number;
}

export async function callStatelessSource(
  deps: StatelessDeps,
  config: UpstreamConfig,
  target: StatelessTarget,
): Promise<SourceCallOutcome> {
  const started = Date.now();
  // Before the breaker: nothing is sent, so the upstream's health is not in question.
  const refused = bearerRefusal(config);
  if (refused) return errorOutcome(config.slug, "authorization_required", refused, started);
  const admission = await deps.breakers.admit(config.sourceId, deps.object, probeLeaseMs(config.timeoutMs));
  // Refused calls are answered at once and not reported: only calls that reached for the upstream count.
  if (!admission.allowed)
    return errorOutcome(config.slug, "circuit_open", circuitOpenMessage(config.slug, admission.retryAfterMs), started);
  const endpoint = upstreamEndpoint(config, deps.fetch);
  const protocol = { protocolVersion: target.protocolVersion, discover: target.discover };
  const attempt = await withRetries(() => {
    checkUpstreamUrl(config.url, config.allowPrivateUpstreams, config.selfOrigin);
    return callStatelessTool(endpoint, protocol, {
      name: target.name,
      args: target.args,
      timeoutMs: config.timeoutMs,
      clientName: GATEWAY_CLIENT_NAME,
      maxAnswerBytes: target.maxResultBytes,
    });
  }, target.idempotent);
  const { outcome, report } = settleCall(config.slug, target, attempt, started, admission.probe);
  deps.breakers.record(config.sourceId, report, deps.object, deps.waitUntil);
  return outcome;
}

export interface StatelessForward {
  request: ForwardedRequest;
  protocolVersion: string;
  discover: Record<string, unknown> | undefined;
  maxResultBytes: number;
}

/**
 * A request beyond tools/call (decision 0068) to a stateless source, on the same terms as a call:
 * the same bearer refusal, breaker, URL re-check, timeouts and bound on the answer. Every such
 * request only reads, so a connection failure is retried as for an idempotent tool.
 */
export async function forwardStatelessSource(
  deps: StatelessDeps,
  config: UpstreamConfig,
  target: StatelessForward,
): Promise<UpstreamForwardOutcome> {
  const started = Date.now();
  const refused = bearerRefusal(config);
  if (refused) return forwardFailure(config.slug, "authorization_required", refused, started);
  const admission = await deps.breakers.admit(config.sourceId, deps.object, probeLeaseMs(config.timeoutMs));
  if (!admission.allowed)
    return forwardFailure(config.slug, "circuit_open", circuitOpenMessage(config.slug, admission.retryAfterMs), started);
  const endpoint = upstreamEndpoint(config, deps.fetch);
  const protocol = { protocolVersion: target.protocolVersion, discover: target.discover };
  const attempt = await withRetries(() => {
    checkUpstreamUrl(config.url, config.allowPrivateUpstreams, config.selfOrigin);
    return requestStateless(endpoint, protocol, target.request, {
      timeoutMs: config.timeoutMs,
      clientName: GATEWAY_CLIENT_NAME,
      maxAnswerBytes: target.maxResultBytes,
    });
  }, true);
  const { outcome, report } = settleForward(config.slug, attempt, started, admission.probe);
  deps.breakers.record(config.sourceId, report, deps.object, deps.waitUntil);
  return outcome;
}
