/**
 * A gateway call's failures, typed once for both call paths (the stateless one in the Worker and
 * the sessionful one in the source's Durable Object): what the outbound MCP client classified,
 * plus `url_refused` for a URL the upstream rules no longer allow and `result_too_large` for an
 * answer past GATEWAY_MAX_RESULT_BYTES. Also what each failure means for the breaker and whether a
 * retry is safe.
 */
import { AppError } from "../../lib/errors";
import { assertSafeUpstreamUrl } from "../../lib/url-safety";
import { AnswerTooLargeError } from "../../mcp-client/answer-limit";
import { classifyMcpError } from "../../mcp-client/errors";
import { isOwnOriginUrl, ownOriginRefusal } from "../sources/own-gateway-url";
import { backoffMs, MAX_ATTEMPTS, sleep } from "./backoff";
import { MAX_RESULT_BYTES_SETTING } from "../sources/gateway-limits";
import type { BreakerEffect, UpstreamErrorType } from "../sources/upstream.types";

export interface UpstreamFailure {
  type: UpstreamErrorType;
  message: string;
  /** Whether the upstream's health is in question (the breaker counts it). */
  countsAsFailure: boolean;
  /** The failing request never reached the upstream: always safe to retry. */
  beforeSend: boolean;
  /** The upstream's HTTP status when it answered with one. */
  httpStatus?: number | undefined;
  /** `insufficient_scope`: the scopes the upstream's challenge named. */
  requiredScope?: string | undefined;
}

/** Thrown before any connection is opened to a URL the upstream URL rules refuse. */
export class UrlRefusedError extends Error {
  override readonly name = "UrlRefusedError";
}

/**
 * Refuses a URL the upstream URL rules no longer allow, under the settings the call carries: a
 * source registered while ALLOW_PRIVATE_UPSTREAMS was set stops being reached once it is removed,
 * and one on the Worker's own origin (`selfOrigin`, SELF_ORIGIN), stored before registration refused
 * it, is never fetched (decision 0057). Run every time a connection is opened, on both call paths,
 * discovery and refresh included.
 */
export function checkUpstreamUrl(url: string, allowPrivateUpstreams: boolean, selfOrigin: string | undefined): void {
  try {
    const parsed = assertSafeUpstreamUrl(url, allowPrivateUpstreams);
    if (isOwnOriginUrl(parsed, [selfOrigin])) throw AppError.invalid(`url ${ownOriginRefusal(parsed)}`, "url");
  } catch (error) {
    throw new UrlRefusedError(error instanceof AppError ? error.message : "url is not allowed", { cause: error });
  }
}

export function upstreamFailure(error: unknown, beforeSend: boolean): UpstreamFailure {
  if (error instanceof UrlRefusedError) return { type: "url_refused", message: error.message, countsAsFailure: false, beforeSend: true };
  // The upstream answered, too much: its health is not in question (no breaker failure), and a
  // retry would only fetch the same answer again.
  if (error instanceof AnswerTooLargeError) {
    const limit = `${error.limitBytes} bytes, the limit on a tool result (${MAX_RESULT_BYTES_SETTING})`;
    const message = `the upstream's answer is larger than ${limit}; it was cut off unread`;
    return { type: "result_too_large", message, countsAsFailure: false, beforeSend: false };
  }
  const failure = classifyMcpError(error, beforeSend);
  return {
    type: failure.type,
    message: failure.message,
    countsAsFailure: failure.countsAsFailure,
    beforeSend: failure.beforeSend,
    httpStatus: failure.httpStatus,
    requiredScope: failure.requiredScope,
  };
}

/**
 * A failure of the upstream counts against the breaker; any other answer proves it alive (a JSON-RPC
 * error, a full bridge); a refused URL says nothing of the upstream's health.
 */
export function breakerEffect(failure: UpstreamFailure | undefined): BreakerEffect {
  if (failure === undefined) return "success";
  if (failure.countsAsFailure) return "failure";
  return failure.type === "url_refused" ? "none" : "success";
}

/**
 * Runs `attempt`, retrying only what cannot have run twice: failures while connecting (the call
 * was never sent), or any connection failure of a tool the upstream annotated idempotent. At most
 * MAX_ATTEMPTS, with jittered backoff. Ends with the value or the last failure, typed.
 */
export async function withRetries<T>(attempt: () => Promise<T>, idempotent: boolean): Promise<{ value: T } | { failure: UpstreamFailure }> {
  for (let tries = 1; ; tries++) {
    try {
      return { value: await attempt() };
    } catch (error) {
      const failure = upstreamFailure(error, false);
      const retriable = failure.type === "connection" && (failure.beforeSend || idempotent);
      if (!retriable || tries >= MAX_ATTEMPTS) return { failure };
      await sleep(backoffMs(tries));
    }
  }
}
