/**
 * The MCP client side of the gateway: one SDK Client over streamable HTTP to one upstream, and
 * the mapping of whatever it throws onto the gateway's typed errors. Used only inside the
 * source's Durable Object (durable-objects/source.do.ts).
 *
 * Upstream URLs on the Worker's own origin (SELF_ORIGIN) are served through the SELF service
 * binding: a Worker cannot reach its own hostname with a plain fetch (decision 0008).
 */
import {
  type CallToolResult,
  Client,
  type FetchLike,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { UpstreamConfig, UpstreamErrorType, UpstreamTool } from "./upstream.types";

const CLIENT_INFO = { name: "mcp-edge-gateway", version: "0.1.0" };
/** Pages of tools/list read at most, so a misbehaving upstream cannot keep discovery looping. */
const MAX_LIST_PAGES = 20;

export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  constructor(
    readonly type: UpstreamErrorType,
    message: string,
    /** Whether the upstream's health is in question (breaker) — a JSON-RPC error answer is not. */
    readonly countsAsFailure: boolean,
    /** True when the failing request never reached the upstream: always safe to retry. */
    readonly beforeSend: boolean,
    options?: { cause?: unknown; httpStatus?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.httpStatus = options?.httpStatus;
  }

  /** The upstream's HTTP status when it answered with one. */
  readonly httpStatus: number | undefined;
}

export interface SessionInfo {
  protocolVersion: string | null;
  sessionId: string | null;
}

export interface Upstream {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export interface SelfRoute {
  SELF: Fetcher;
  SELF_ORIGIN?: string | undefined;
}

export function upstreamFetch(env: SelfRoute): FetchLike {
  const own = env.SELF_ORIGIN ? new URL(env.SELF_ORIGIN).origin : undefined;
  return (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (own === undefined || url.origin !== own) return fetch(request);
    // A service-binding request carries no Host header; the MCP handler's Host check expects the
    // one a network fetch would have sent.
    request.headers.set("host", url.host);
    return env.SELF.fetch(request);
  };
}

/** Connects (negotiating the protocol version), or resumes a stored 2025-era session without a handshake. */
export async function connectUpstream(config: UpstreamConfig, env: SelfRoute, resume?: SessionInfo): Promise<Upstream> {
  const resumable = resume?.sessionId ? resume : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    fetch: upstreamFetch(env),
    requestInit: { headers: config.headers },
    ...(resumable ? { sessionId: resumable.sessionId ?? undefined, protocolVersion: resumable.protocolVersion ?? undefined } : {}),
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: config.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw toUpstreamError(error, true);
  }
  return { client, transport };
}

export function sessionOf(upstream: Upstream): SessionInfo {
  return {
    protocolVersion: upstream.client.getNegotiatedProtocolVersion() ?? null,
    sessionId: upstream.transport.sessionId ?? null,
  };
}

export async function listUpstreamTools(upstream: Upstream, timeoutMs: number): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await upstream.client
      .listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs })
      .catch((error: unknown) => {
        throw toUpstreamError(error, false);
      });
    for (const tool of result.tools) {
      tools.push({
        name: tool.name,
        title: tool.title ?? tool.annotations?.title ?? null,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema ?? null,
        annotations: { ...tool.annotations },
      });
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new UpstreamError("protocol", `tools/list did not end after ${MAX_LIST_PAGES} pages`, true, false);
}

export async function callUpstreamTool(
  upstream: Upstream,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<CallToolResult> {
  try {
    return await upstream.client.callTool({ name, arguments: args }, { timeout: timeoutMs });
  } catch (error) {
    throw toUpstreamError(error, false);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `beforeSend`: the failure happened while connecting, so the tool call itself was never sent. */
export function toUpstreamError(error: unknown, beforeSend: boolean): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const options = { cause: error };
  if (error instanceof SdkHttpError) {
    return new UpstreamError("connection", `upstream answered HTTP ${error.status}`, true, beforeSend, { cause: error, httpStatus: error.status });
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return new UpstreamError("timeout", "upstream did not answer in time", true, beforeSend, options);
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.SendFailed ||
      error.code === SdkErrorCode.NotConnected
    ) {
      return new UpstreamError("connection", `upstream connection failed: ${describe(error)}`, true, beforeSend, options);
    }
    return new UpstreamError("protocol", `upstream broke the protocol: ${describe(error)}`, true, beforeSend, options);
  }
  if (error instanceof ProtocolError) {
    return new UpstreamError("protocol", `upstream error ${error.code}: ${describe(error)}`, false, beforeSend, options);
  }
  if (error instanceof TypeError) {
    return new UpstreamError("connection", `upstream unreachable: ${describe(error)}`, true, beforeSend, options);
  }
  return new UpstreamError(beforeSend ? "connection" : "protocol", `upstream call failed: ${describe(error)}`, true, beforeSend, options);
}
