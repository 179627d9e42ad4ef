/**
 * One classification of whatever an outbound MCP exchange throws (the SDK's HTTP, transport and
 * JSON-RPC errors, a refused fetch, a timeout) into a typed `McpClientError`. The gateway, the
 * chat agent and the command line all read failures through it.
 */
import {
  InsufficientScopeError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { BRIDGE_AT_CAPACITY, BRIDGE_PROCESS_EXITED } from "./bridge-protocol";

/** The 2026-07-28 error a modern-only server answers a 2025-era request (its `initialize` included) with. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * `connection`: the server could not be reached or went away; `protocol`: it answered something
 * that breaks the protocol, or a JSON-RPC error; `timeout`: no answer in time; `busy`: it refused
 * for lack of capacity (a full bridge) and said when to retry; `unauthorized`: it refused the
 * credentials (HTTP 401); `insufficient_scope`: it refused them for lack of a scope (HTTP 403 with
 * the `insufficient_scope` challenge, the scopes it wants in `requiredScope`). Neither of the last
 * two says anything of the server's health.
 */
export type McpErrorType = "connection" | "protocol" | "timeout" | "busy" | "unauthorized" | "insufficient_scope";

export class McpClientError extends Error {
  override readonly name = "McpClientError";
  /** The server's HTTP status when it answered with one. */
  readonly httpStatus: number | undefined;
  /** `insufficient_scope`: the scopes the server's challenge asked for (space-separated), when it named them. */
  readonly requiredScope: string | undefined;

  constructor(
    readonly type: McpErrorType,
    message: string,
    /** Whether the server's health is in question (a circuit breaker counts it) — a JSON-RPC error answer is not. */
    readonly countsAsFailure: boolean,
    /** True when the failing request never reached the server: always safe to retry. */
    readonly beforeSend: boolean,
    options?: { cause?: unknown; httpStatus?: number | undefined; requiredScope?: string | undefined },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.httpStatus = options?.httpStatus;
    this.requiredScope = options?.requiredScope;
  }
}

/** Error text without secrets: SDK errors name the status or the failure, never request headers. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // "fetch failed" says little; its causes name the refusal (ECONNREFUSED) or the DNS failure.
  let text = error.message;
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++, cause = cause.cause) {
    const more =
      "code" in cause && typeof cause.code === "string" && !cause.message.includes(cause.code)
        ? `${cause.message} ${cause.code}`
        : cause.message;
    if (!text.includes(more)) text += ` (${more})`;
  }
  return text;
}

/** The JSON-RPC error of an HTTP error answer's body, if it carried one. */
export function jsonRpcErrorOf(error: SdkHttpError): { code: unknown; message: unknown } | undefined {
  const data: unknown = error.data;
  const text = typeof data === "object" && data !== null && "text" in data && typeof data.text === "string" ? data.text : undefined;
  if (text === undefined) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
    const rpc = body.error;
    if (typeof rpc !== "object" || rpc === null || !("code" in rpc)) return undefined;
    return { code: rpc.code, message: "message" in rpc ? rpc.message : undefined };
  } catch {
    return undefined;
  }
}

/**
 * The message of a full bridge's refusal (HTTP 429 / 503 with a BRIDGE_AT_CAPACITY JSON-RPC error
 * naming the limit and when to retry); undefined for any other HTTP failure.
 */
function capacityRefusal(error: SdkHttpError): string | undefined {
  if (error.status !== 429 && error.status !== 503) return undefined;
  const rpc = jsonRpcErrorOf(error);
  if (rpc?.code !== BRIDGE_AT_CAPACITY) return undefined;
  return typeof rpc.message === "string" ? rpc.message.slice(0, 500) : "the bridge is at capacity";
}

/** `beforeSend`: the failure happened while connecting, so the request itself was never sent. */
export function classifyMcpError(error: unknown, beforeSend: boolean): McpClientError {
  if (error instanceof McpClientError) return error;
  const options = { cause: error };
  // Without an OAuth provider on the transport (the gateway sends its own bearer), the SDK answers a
  // 401 with UnauthorizedError or an HTTP error of status 401, and a 403 insufficient_scope with this.
  if (error instanceof InsufficientScopeError) {
    const scope = error.requiredScope?.slice(0, 1000);
    return new McpClientError(
      "insufficient_scope",
      `upstream needs more permission${scope ? ` (scope ${scope})` : ""}`,
      false,
      beforeSend,
      {
        cause: error,
        httpStatus: 403,
        requiredScope: scope,
      },
    );
  }
  if (error instanceof UnauthorizedError || (error instanceof SdkHttpError && error.status === 401)) {
    return new McpClientError("unauthorized", "upstream refused the credentials (HTTP 401)", false, beforeSend, {
      cause: error,
      httpStatus: 401,
    });
  }
  if (error instanceof SdkHttpError) {
    // Full, not failing: the server is alive and said when to come back, so no breaker, no quick retry.
    const full = capacityRefusal(error);
    if (full !== undefined) return new McpClientError("busy", full, false, beforeSend, { cause: error, httpStatus: error.status });
    return new McpClientError("connection", `upstream answered HTTP ${error.status}`, true, beforeSend, {
      cause: error,
      httpStatus: error.status,
    });
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return new McpClientError("timeout", "upstream did not answer in time", true, beforeSend, options);
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.SendFailed ||
      error.code === SdkErrorCode.NotConnected
    ) {
      return new McpClientError("connection", `upstream connection failed: ${describeError(error)}`, true, beforeSend, options);
    }
    return new McpClientError("protocol", `upstream broke the protocol: ${describeError(error)}`, true, beforeSend, options);
  }
  if (error instanceof ProtocolError && error.code === BRIDGE_PROCESS_EXITED) {
    // The bridge's stdio process died before answering: the upstream went away mid-call.
    return new McpClientError("connection", `upstream process exited: ${describeError(error)}`, true, beforeSend, options);
  }
  if (error instanceof ProtocolError) {
    return new McpClientError("protocol", `upstream error ${error.code}: ${describeError(error)}`, false, beforeSend, options);
  }
  if (error instanceof TypeError) {
    return new McpClientError("connection", `upstream unreachable: ${describeError(error)}`, true, beforeSend, options);
  }
  return new McpClientError(
    beforeSend ? "connection" : "protocol",
    `upstream call failed: ${describeError(error)}`,
    true,
    beforeSend,
    options,
  );
}
