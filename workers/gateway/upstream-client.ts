/**
 * The MCP client side of the gateway: one SDK Client per upstream connection, over the source's
 * transport, and the mapping of whatever it throws onto the gateway's typed errors. Used only
 * inside the source's Durable Object (durable-objects/source.do.ts).
 *
 * - streamable_http: the SDK's StreamableHTTPClientTransport (2025-era sessions are resumable).
 * - sse: the legacy HTTP+SSE transport (SSEClientTransport); no resumable session.
 * - stdio: streamable HTTP to an `mcp-edge bridge`, with the source's env in `Mcp-Bridge-Env`.
 *
 * Upstream URLs on the Worker's own origin (SELF_ORIGIN) are served through the SELF service
 * binding (lib/self-fetch.ts): a Worker cannot reach its own hostname with a plain fetch (decision 0008).
 */
import {
  type CallToolResult,
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { AppError } from "../lib/errors";
import { selfRoutedFetch } from "../mcp-client/self-routed-fetch";
import { BRIDGE_AT_CAPACITY, BRIDGE_ENV_HEADER, BRIDGE_PROCESS_EXITED, encodeBridgeEnv } from "../mcp-client/bridge-protocol";
import type { UpstreamConfig, UpstreamErrorType, UpstreamTool } from "./upstream.types";
import { assertSafeUpstreamUrl } from "../lib/url-safety";
import { storedJsonProblem } from "../lib/stored-json";

const CLIENT_INFO = { name: "mcp-edge-gateway", version: "0.1.0" };
/** Pages of tools/list read at most, so a misbehaving upstream cannot keep discovery looping. */
const MAX_LIST_PAGES = 20;
/** Each of a tool's schemas and its annotations, as stored in the inventory (source_tools) and listed on /mcp. */
const MAX_TOOL_JSON_BYTES = 256 * 1024;
/** How long closing waits for the upstream to acknowledge the end of its session. */
const TERMINATE_WAIT_MS = 2_000;

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
  transport: StreamableHTTPClientTransport | SSEClientTransport;
}

/** Tools read from the upstream, with its 2026-07-28 list cache hint when it sent one. */
export interface ToolListing {
  tools: UpstreamTool[];
  /** `ttlMs` of the (first page of the) tools/list result; null when absent or invalid. */
  ttlMs: number | null;
}

export interface ConnectOptions {
  resume?: SessionInfo | undefined;
  /** Called (debounced by the SDK) when the upstream sends notifications/tools/list_changed. */
  onToolsChanged?: (() => void) | undefined;
}

function requestHeaders(config: UpstreamConfig): Record<string, string> {
  if (config.transport !== "stdio" || !config.env || Object.keys(config.env).length === 0) return { ...config.headers };
  return { ...config.headers, [BRIDGE_ENV_HEADER]: encodeBridgeEnv(config.env) };
}

/**
 * Refuses a URL the upstream URL rules no longer allow, under the setting the config carries: a
 * source registered while ALLOW_PRIVATE_UPSTREAMS was set stops being reached once it is removed.
 */
function checkUrl(config: UpstreamConfig): void {
  try {
    assertSafeUpstreamUrl(config.url, config.allowPrivateUpstreams);
  } catch (error) {
    const reason = error instanceof AppError ? error.message : "url is not allowed";
    throw new UpstreamError("url_refused", reason, false, true, { cause: error });
  }
}

/**
 * Connects (negotiating the protocol version), or resumes a stored 2025-era session without a
 * handshake. The one place a connection to an upstream is opened — for calls, discovery, refresh,
 * rediscovery and the warm connection that hears list_changed — so the URL is checked here.
 */
export async function connectUpstream(config: UpstreamConfig, env: Pick<Env, "SELF" | "SELF_ORIGIN">, options: ConnectOptions = {}): Promise<Upstream> {
  checkUrl(config);
  const headers = requestHeaders(config);
  const fetch = selfRoutedFetch(env);
  let transport: Upstream["transport"];
  if (config.transport === "sse") {
    transport = new SSEClientTransport(new URL(config.url), { fetch, requestInit: { headers }, eventSourceInit: { fetch } });
  } else {
    const resumable = options.resume?.sessionId ? options.resume : undefined;
    transport = new StreamableHTTPClientTransport(new URL(config.url), {
      fetch,
      requestInit: { headers },
      ...(resumable ? { sessionId: resumable.sessionId ?? undefined, protocolVersion: resumable.protocolVersion ?? undefined } : {}),
    });
  }
  const onToolsChanged = options.onToolsChanged;
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    // The SDK only activates this when the upstream advertises tools.listChanged; we re-list ourselves
    // (paginated, with the cache hint), so its own refresh is off.
    ...(onToolsChanged ? { listChanged: { tools: { autoRefresh: false, onChanged: () => onToolsChanged() } } } : {}),
  });
  try {
    await client.connect(transport, { timeout: config.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw toUpstreamError(error, true);
  }
  // A resumed session skips the handshake, so the SDK opens no GET stream for it: its
  // list_changed notifications are missed until the next re-initialisation or scheduled rediscovery.
  return { client, transport };
}

/**
 * Ends the upstream session (DELETE, best effort) and closes the client. A bridge kills the stdio
 * process of a session it is told to end; without this, a transient call's process would live on
 * until the bridge's idle timeout.
 */
export async function closeUpstream(upstream: Upstream): Promise<void> {
  if (upstream.transport instanceof StreamableHTTPClientTransport && upstream.transport.sessionId !== undefined) {
    // An upstream that hangs must not hold the caller: give the DELETE a moment, no more.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      upstream.transport.terminateSession().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_WAIT_MS))),
    ]);
    if (timer !== undefined) clearTimeout(timer);
  }
  await upstream.client.close().catch(() => undefined);
}

export function sessionOf(upstream: Upstream): SessionInfo {
  return {
    protocolVersion: upstream.client.getNegotiatedProtocolVersion() ?? null,
    sessionId: sessionIdOf(upstream),
  };
}

/** The 2025-era session id a streamable HTTP upstream assigned; SSE sessions cannot be resumed. */
export function sessionIdOf(upstream: Upstream): string | null {
  return upstream.transport instanceof StreamableHTTPClientTransport ? (upstream.transport.sessionId ?? null) : null;
}

function ttlOf(result: object): number | null {
  const ttl = (result as { ttlMs?: unknown }).ttlMs;
  return typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : null;
}

/**
 * A tool's schemas and annotations are stored (source_tools) and listed on the owner's /mcp: one no
 * common client can parse is refused at discovery, as the upstream's protocol error.
 */
function storedToolProblem(tool: { inputSchema: object; outputSchema?: object | undefined; annotations?: object | undefined }): string | undefined {
  for (const [field, value] of [["inputSchema", tool.inputSchema], ["outputSchema", tool.outputSchema], ["annotations", tool.annotations]] as const) {
    const problem = value === undefined ? undefined : storedJsonProblem(value, MAX_TOOL_JSON_BYTES);
    if (problem) return `${field}: ${problem}`;
  }
  return undefined;
}

export async function listUpstreamTools(upstream: Upstream, timeoutMs: number): Promise<ToolListing> {
  const tools: UpstreamTool[] = [];
  let ttlMs: number | null = null;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await upstream.client
      .listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs })
      .catch((error: unknown) => {
        throw toUpstreamError(error, false);
      });
    if (page === 0) ttlMs = ttlOf(result);
    for (const tool of result.tools) {
      const problem = storedToolProblem(tool);
      if (problem) throw new UpstreamError("protocol", `tools/list: tool "${tool.name.slice(0, 64)}" ${problem}`, false, false);
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
    if (cursor === undefined) return { tools, ttlMs };
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

/**
 * The message of a full bridge's refusal (HTTP 429 / 503 with a BRIDGE_AT_CAPACITY JSON-RPC error
 * naming the limit and when to retry); undefined for any other HTTP failure.
 */
function capacityRefusal(error: SdkHttpError): string | undefined {
  if (error.status !== 429 && error.status !== 503) return undefined;
  const data: unknown = error.data;
  const text = typeof data === "object" && data !== null && "text" in data && typeof data.text === "string" ? data.text : undefined;
  if (text === undefined) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
    const rpc = body.error;
    if (typeof rpc !== "object" || rpc === null || !("code" in rpc) || rpc.code !== BRIDGE_AT_CAPACITY) return undefined;
    return "message" in rpc && typeof rpc.message === "string" ? rpc.message.slice(0, 500) : "the bridge is at capacity";
  } catch {
    return undefined;
  }
}

/** `beforeSend`: the failure happened while connecting, so the tool call itself was never sent. */
export function toUpstreamError(error: unknown, beforeSend: boolean): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const options = { cause: error };
  if (error instanceof SdkHttpError) {
    // Full, not failing: the upstream is alive and said when to come back, so no breaker, no quick retry.
    const full = capacityRefusal(error);
    if (full !== undefined) return new UpstreamError("busy", full, false, beforeSend, { cause: error, httpStatus: error.status });
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
  if (error instanceof ProtocolError && error.code === BRIDGE_PROCESS_EXITED) {
    // The bridge's stdio process died before answering: the upstream went away mid-call.
    return new UpstreamError("connection", `upstream process exited: ${describe(error)}`, true, beforeSend, options);
  }
  if (error instanceof ProtocolError) {
    return new UpstreamError("protocol", `upstream error ${error.code}: ${describe(error)}`, false, beforeSend, options);
  }
  if (error instanceof TypeError) {
    return new UpstreamError("connection", `upstream unreachable: ${describe(error)}`, true, beforeSend, options);
  }
  return new UpstreamError(beforeSend ? "connection" : "protocol", `upstream call failed: ${describe(error)}`, true, beforeSend, options);
}
