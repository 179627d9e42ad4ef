/**
 * The outbound MCP client every part of mcp-edge uses — the gateway's upstream connections, the
 * chat agent's tool loader and the `mcp-edge` command line: connect with version negotiation,
 * list every tool, call one, close with a bounded wait. Runtime-neutral: the caller supplies the
 * `fetch` (the network, called as a function; a service binding; the global fetch in Node) and
 * the headers (a bearer token, a source's headers).
 *
 * Negotiation:
 * - `auto` probes with `server/discover` and speaks 2026-07-28 to a server that offers it, else the
 *   2025 `initialize` handshake (the SDK's own negotiation).
 * - `legacy-first` runs the 2025 handshake (the client offers the newest 2025 revision, the server
 *   picks) and only when the server refuses it as a 2026-07-28-only server connects in the modern
 *   era. The gateway uses it: a stateless 2025-era server is then called with one request per call
 *   and no handshake (stateless-call.ts), and the bridge speaks 2025 only (decision 0033).
 */
import {
  type CallToolResult,
  Client,
  type DiscoverResult,
  type FetchLike,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import type { AnswerLimits, BoundedCallOptions } from "./answer-limit";
import { classifyMcpError, jsonRpcErrorOf, UNSUPPORTED_PROTOCOL_VERSION } from "./errors";

/** Pages of tools/list read at most, so a misbehaving server cannot keep a listing looping. */
export const MAX_LIST_PAGES = 20;
/** How long closing waits for the server to acknowledge the end of its session. */
export const TERMINATE_WAIT_MS = 2_000;

export interface McpEndpoint {
  url: string;
  /** `streamable_http` (default) or the legacy HTTP+SSE transport. */
  transport?: "streamable_http" | "sse" | undefined;
  /** How requests go out; the global fetch when absent. */
  fetch?: FetchLike | undefined;
  /** Sent with every request (a bearer token, a gateway source's headers). */
  headers?: Record<string, string> | undefined;
}

export type Negotiation = "auto" | "legacy-first";

/** The headers that send `token` as a bearer token (none without one). */
export function bearer(token: string | undefined): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** A 2025-era session to resume without a handshake (a streamable HTTP server's session id). */
export interface SessionInfo {
  protocolVersion: string | null;
  sessionId: string | null;
}

export interface ConnectOptions {
  /** Our `clientInfo.name` (mcp-edge-gateway, mcp-edge-agent, mcp-edge-cli). */
  clientName: string;
  /** For the handshake (or probe); `callTool` and `listTools` take their own. */
  timeoutMs: number;
  negotiation?: Negotiation | undefined;
  resume?: SessionInfo | undefined;
  /** Called (debounced by the SDK) when the server sends notifications/tools/list_changed. */
  onToolsChanged?: (() => void) | undefined;
}

export interface McpClientConnection {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport | SSEClientTransport;
  /**
   * Set by a caller that opened the connection with `answerLimits.wrap(fetch)`: `callMcpTool`
   * then bounds each call's answer while it streams in (answer-limit.ts).
   */
  readonly answerLimits?: AnswerLimits | undefined;
}

/** What was negotiated: the era, the version, a session id when the server gave one, and the 2026-07-28 discover result. */
export interface Negotiated {
  era: "legacy" | "modern";
  protocolVersion: string | null;
  sessionId: string | null;
  discover: DiscoverResult | undefined;
}

export type { DiscoverResult, FetchLike };

const CLIENT_VERSION = "0.2.0";

function openTransport(endpoint: McpEndpoint, resume: SessionInfo | undefined): McpClientConnection["transport"] {
  const url = new URL(endpoint.url);
  const requestInit = { headers: { ...endpoint.headers } };
  const fetch = endpoint.fetch;
  if (endpoint.transport === "sse") {
    return new SSEClientTransport(url, { ...(fetch ? { fetch, eventSourceInit: { fetch } } : {}), requestInit });
  }
  return new StreamableHTTPClientTransport(url, {
    ...(fetch ? { fetch } : {}),
    requestInit,
    ...(resume?.sessionId ? { sessionId: resume.sessionId, protocolVersion: resume.protocolVersion ?? undefined } : {}),
  });
}

function newClient(options: ConnectOptions, mode: "legacy" | "auto" | { pin: string }): Client {
  const onToolsChanged = options.onToolsChanged;
  return new Client(
    { name: options.clientName, version: CLIENT_VERSION },
    {
      capabilities: {},
      versionNegotiation: { mode },
      listMaxPages: MAX_LIST_PAGES,
      // The SDK only activates this when the server advertises tools.listChanged; the caller re-lists
      // itself (all pages, with the cache hint), so the SDK's own refresh is off.
      ...(onToolsChanged ? { listChanged: { tools: { autoRefresh: false, onChanged: () => onToolsChanged() } } } : {}),
    },
  );
}

/** A 2026-07-28-only server refuses the 2025 handshake with HTTP 400 and `-32022` (unsupported protocol version). */
function refusesLegacy(error: unknown): boolean {
  return error instanceof SdkHttpError && error.status === 400 && jsonRpcErrorOf(error)?.code === UNSUPPORTED_PROTOCOL_VERSION;
}

async function handshake(
  endpoint: McpEndpoint,
  options: ConnectOptions,
  mode: "legacy" | "auto" | { pin: string },
): Promise<McpClientConnection> {
  const transport = openTransport(endpoint, mode === "legacy" ? options.resume : undefined);
  const client = newClient(options, mode);
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return { client, transport };
}

/**
 * Connects (negotiating the protocol version), or resumes a stored 2025-era session without a
 * handshake. Throws a typed McpClientError (errors.ts).
 */
export async function connectMcp(endpoint: McpEndpoint, options: ConnectOptions): Promise<McpClientConnection> {
  const negotiation = options.negotiation ?? "legacy-first";
  try {
    if (negotiation === "auto" && endpoint.transport !== "sse") return await handshake(endpoint, options, "auto");
    try {
      return await handshake(endpoint, options, "legacy");
    } catch (error) {
      if (!refusesLegacy(error) || endpoint.transport === "sse") throw error;
      return await handshake(endpoint, options, { pin: "2026-07-28" });
    }
  } catch (error) {
    throw classifyMcpError(error, true);
  }
}

export function negotiated({ client, transport }: McpClientConnection): Negotiated {
  return {
    era: client.getProtocolEra() ?? "legacy",
    protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
    sessionId: transport instanceof StreamableHTTPClientTransport ? (transport.sessionId ?? null) : null,
    discover: client.getDiscoverResult(),
  };
}

/** The 2025-era session id a streamable HTTP server assigned; an SSE session cannot be resumed. */
export function sessionIdOf({ transport }: McpClientConnection): string | null {
  return transport instanceof StreamableHTTPClientTransport ? (transport.sessionId ?? null) : null;
}

/**
 * Ends the server session (DELETE, best effort) and closes the client. A bridge kills the stdio
 * process of a session it is told to end; a server that hangs holds the caller at most
 * TERMINATE_WAIT_MS. Never throws.
 */
export async function closeMcp({ client, transport }: McpClientConnection): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      transport.terminateSession().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_WAIT_MS))),
    ]);
    if (timer !== undefined) clearTimeout(timer);
  }
  await client.close().catch(() => undefined);
}

/** Every tool (at most MAX_LIST_PAGES pages), with the 2026-07-28 list cache hint when the server sent one. */
export interface ToolListing {
  tools: Tool[];
  /** `ttlMs` of the (first page of the) tools/list result; null when absent or invalid. */
  ttlMs: number | null;
}

function ttlOf(result: object): number | null {
  const ttl = "ttlMs" in result ? result.ttlMs : undefined;
  return typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : null;
}

export async function listAllTools({ client }: McpClientConnection, timeoutMs: number): Promise<ToolListing> {
  try {
    const result = await client.listTools(undefined, { timeout: timeoutMs, cacheMode: "refresh" });
    return { tools: result.tools, ttlMs: ttlOf(result) };
  } catch (error) {
    throw classifyMcpError(error, false);
  }
}

/**
 * `maxAnswerBytes`: the most bytes the answer may have, enforced while it streams in when the
 * connection has `answerLimits` (past it: AnswerTooLargeError); unbounded otherwise.
 */
export async function callMcpTool(
  { client, answerLimits }: McpClientConnection,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
  maxAnswerBytes?: number,
): Promise<CallToolResult> {
  const call = (bound?: BoundedCallOptions) => client.callTool({ name, arguments: args }, { timeout: timeoutMs, ...bound });
  try {
    return answerLimits && maxAnswerBytes !== undefined ? await answerLimits.call(maxAnswerBytes, call) : await call();
  } catch (error) {
    throw classifyMcpError(error, false);
  }
}
