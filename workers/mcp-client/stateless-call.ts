/**
 * One tools/call to a server already known to keep no session, as one HTTP request: no handshake,
 * nothing kept afterwards. What was negotiated once (connect.ts, at the gateway's discovery) is
 * all it needs.
 *
 * - 2026-07-28: the SDK Client adopts the stored `server/discover` result (`connect({ prior })`,
 *   zero round trips) and sends the call with the per-request envelope.
 * - 2025 era: a server that gave no session id after `initialize` serves every request on its own,
 *   so the call goes out as one JSON-RPC request with the negotiated `MCP-Protocol-Version`. The
 *   SDK Client has no way to skip the handshake without a session id, so the exchange is done on
 *   the SDK's own transport (its HTTP, SSE and error handling) with the request/response matching
 *   written here; the result is checked with the SDK's CallToolResult schema.
 *
 * `maxAnswerBytes` bounds the answer while it streams in (answer-limit.ts), on both eras: past it
 * the call fails with AnswerTooLargeError and nothing more is read.
 */
import {
  type CallToolResult,
  Client,
  type DiscoverResult,
  isCallToolResult,
  isJsonContentType,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { AnswerLimits, type BoundedCallOptions } from "./answer-limit";
import type { FetchLike, McpEndpoint } from "./connect";
import { isJsonObject } from "../lib/json";
import { classifyMcpError, McpClientError } from "./errors";
import { answeredError, type ForwardedRequest, forward, overClient, type UpstreamAnswer } from "./upstream-request";

/** What discovery negotiated with a server that keeps no session. */
export interface StatelessProtocol {
  protocolVersion: string;
  /** The server's 2026-07-28 `server/discover` result as stored; absent for a 2025-era server. */
  discover?: Record<string, unknown> | undefined;
}

const CLIENT_VERSION = "0.2.0";
const REQUEST_ID = 1;

export interface StatelessCall {
  name: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  clientName: string;
  /** The most bytes the answer may have (one JSON body, or one SSE event); unbounded when absent. */
  maxAnswerBytes?: number | undefined;
}

export async function callStatelessTool(endpoint: McpEndpoint, protocol: StatelessProtocol, call: StatelessCall): Promise<CallToolResult> {
  const limits = new AnswerLimits();
  const bounded = { ...endpoint, fetch: limits.wrap(endpoint.fetch ?? fetch) };
  const send = (options: BoundedCallOptions | undefined) =>
    protocol.discover
      ? callModern(bounded, protocol.discover, call, options)
      : callLegacy(bounded, protocol.protocolVersion, call, options);
  return call.maxAnswerBytes === undefined ? send(undefined) : limits.call(call.maxAnswerBytes, send);
}

async function callModern(
  endpoint: McpEndpoint & { fetch: FetchLike },
  discover: Record<string, unknown>,
  call: StatelessCall,
  bound: BoundedCallOptions | undefined,
): Promise<CallToolResult> {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    fetch: endpoint.fetch,
    requestInit: { headers: { ...endpoint.headers } },
  });
  const client = new Client({ name: call.clientName, version: CLIENT_VERSION }, { capabilities: {} });
  try {
    // connect({ prior }) checks the stored result against the SDK's DiscoverResult schema itself
    // (EraNegotiationFailed when it does not parse), so it is handed over as the SDK's type.
    await client.connect(transport, { prior: { kind: "modern", discover: discover as DiscoverResult } }).catch((error: unknown) => {
      throw classifyMcpError(error, true);
    });
    return await client.callTool({ name: call.name, arguments: call.args }, { timeout: call.timeoutMs, ...bound });
  } catch (error) {
    throw classifyMcpError(error, false);
  } finally {
    await client.close().catch(() => undefined);
  }
}

type Answer = JSONRPCResultResponse | JSONRPCErrorResponse;

async function callLegacy(
  endpoint: McpEndpoint & { fetch: FetchLike },
  protocolVersion: string,
  call: StatelessCall,
  bound: BoundedCallOptions | undefined,
): Promise<CallToolResult> {
  const request = { method: "tools/call", params: { name: call.name, arguments: call.args } };
  const answer = await sendLegacy(endpoint, protocolVersion, request, call.timeoutMs, bound);
  if (isJSONRPCErrorResponse(answer)) {
    throw classifyMcpError(ProtocolError.fromError(answer.error.code, answer.error.message, answer.error.data), false);
  }
  if (!isCallToolResult(answer.result)) {
    throw new McpClientError("protocol", "upstream broke the protocol: the tools/call result is not a CallToolResult", true, false);
  }
  return answer.result;
}

/** One JSON-RPC request of a 2025-era stateless server, answered on its own: one HTTP request, no handshake. */
async function sendLegacy(
  endpoint: McpEndpoint & { fetch: FetchLike },
  protocolVersion: string,
  request: { method: string; params: Record<string, unknown> },
  timeoutMs: number,
  bound: BoundedCallOptions | undefined,
): Promise<Answer> {
  const answers = new AnswerKinds(endpoint.fetch);
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    fetch: answers.fetch,
    requestInit: { headers: { ...endpoint.headers } },
    protocolVersion,
  });
  let answer: Answer;
  try {
    answer = await exchange(transport, request, timeoutMs, bound);
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw classifyMcpError(error, false);
  }
  // An answer that came as one JSON body was read to its end: nothing is left open, and closing
  // would only build the abort's error (a stack trace per call, measurable on this path). An SSE
  // stream may stay open after the answer; closing ends it.
  if (answers.streamed) await transport.close().catch(() => undefined);
  return answer;
}

/** What a forwarded request needs besides the request itself (upstream-request.ts). */
export interface StatelessRequestOptions {
  timeoutMs: number;
  clientName: string;
  maxAnswerBytes?: number | undefined;
}

/**
 * A request beyond tools/call (upstream-request.ts) to a server that keeps no session: a list read
 * to its end, one HTTP request per page. A 2025-era server was never asked for its capabilities
 * here, so an unoffered method is its own "method not found" answer.
 */
export async function requestStateless(
  endpoint: McpEndpoint,
  protocol: StatelessProtocol,
  request: ForwardedRequest,
  options: StatelessRequestOptions,
): Promise<UpstreamAnswer> {
  const limits = new AnswerLimits();
  const bounded = { ...endpoint, fetch: limits.wrap(endpoint.fetch ?? fetch) };
  const send = async (bound: BoundedCallOptions | undefined): Promise<UpstreamAnswer> => {
    if (protocol.discover) return requestModern(bounded, protocol.discover, request, options, bound);
    return forward(async (one) => {
      const answer = await sendLegacy(bounded, protocol.protocolVersion, one, options.timeoutMs, bound);
      if (isJSONRPCErrorResponse(answer)) return { error: { code: answer.error.code, message: answer.error.message.slice(0, 1000) } };
      return isJsonObject(answer.result)
        ? { result: answer.result }
        : { error: { code: -32603, message: `${one.method} result is not an object` } };
    }, request);
  };
  return options.maxAnswerBytes === undefined ? send(undefined) : limits.call(options.maxAnswerBytes, send);
}

async function requestModern(
  endpoint: McpEndpoint & { fetch: FetchLike },
  discover: Record<string, unknown>,
  request: ForwardedRequest,
  options: StatelessRequestOptions,
  bound: BoundedCallOptions | undefined,
): Promise<UpstreamAnswer> {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    fetch: endpoint.fetch,
    requestInit: { headers: { ...endpoint.headers } },
  });
  const client = new Client({ name: options.clientName, version: CLIENT_VERSION }, { capabilities: {} });
  try {
    await client.connect(transport, { prior: { kind: "modern", discover: discover as DiscoverResult } }).catch((error: unknown) => {
      throw classifyMcpError(error, true);
    });
    return await forward(overClient(client, options.timeoutMs, bound), request).catch(answeredError);
  } catch (error) {
    throw classifyMcpError(error, false);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The fetch the transport uses, noting whether any answer was not a plain JSON body. */
class AnswerKinds {
  streamed = false;
  readonly fetch: FetchLike;

  constructor(inner: FetchLike) {
    this.fetch = async (input, init) => {
      const response = await inner(input, init);
      if (!isJsonContentType(response.headers.get("content-type"))) this.streamed = true;
      return response;
    };
  }
}

/**
 * Sends the request and resolves with the response of the same id (JSON or on the SSE stream);
 * notifications are ignored. The deadline is an abort signal's, not a timer of our own: the
 * runtime keeps it natively (a JS timer costs a timer object per call under nodejs_compat) and
 * drops it with the request. `bound`: the call's answer limit, which aborts it when passed.
 */
function exchange(
  transport: StreamableHTTPClientTransport,
  request: { method: string; params: Record<string, unknown> },
  timeoutMs: number,
  bound: BoundedCallOptions | undefined,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      done();
    };
    AbortSignal.timeout(timeoutMs).addEventListener(
      "abort",
      () => settle(() => reject(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out"))),
      { once: true },
    );
    bound?.signal.addEventListener("abort", () => settle(() => reject(bound.signal.reason)), { once: true });
    transport.onmessage = (message) => {
      if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id === REQUEST_ID)
        settle(() => resolve(message));
    };
    transport.onclose = () => settle(() => reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed")));
    transport
      .start()
      .then(() =>
        transport.send(
          { jsonrpc: "2.0", id: REQUEST_ID, method: request.method, params: request.params },
          bound ? { headers: bound.headers } : undefined,
        ),
      )
      .catch((error: unknown) => settle(() => reject(error)));
  });
}
