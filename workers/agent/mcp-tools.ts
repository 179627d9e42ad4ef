/**
 * The agent's MCP tool loader: connect to MCP_URL (5 s for connect + tools/list together), list
 * the tools, and hand back a live connection to call them on. It NEVER throws: an invalid URL, a
 * refused connection, a timeout, an auth failure or any other error is logged as an error and
 * turned into a warning, and the agent runs on its own tools. An empty list is a warning; an
 * empty MCP_URL means "not configured" (info only, nothing is attempted).
 *
 * Every open connection sits in a registry until close(), so "nothing left open after shutdown"
 * is observable (openMcpConnections) rather than assumed. Runtime-neutral: the caller supplies
 * `fetch` (the Worker passes one that routes its own origin through SELF; Node uses the global).
 */
import { Client, type FetchLike, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { log } from "../lib/log";

export const MCP_CONNECT_TIMEOUT_MS = 5_000;
/** A tool call through MCP gets this long before the agent reports it as failed. */
export const MCP_CALL_TIMEOUT_MS = 30_000;
const MAX_LIST_PAGES = 20;
const CLIENT_INFO = { name: "mcp-edge-agent", version: "0.1.0" };

export interface McpToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpTarget {
  /** MCP_URL as configured; empty or undefined = not configured. */
  url: string | undefined;
  fetch?: FetchLike | undefined;
  /**
   * Read on EVERY request, so a per-request bearer token reaches the server without being stored
   * in the connection (the Durable Object sets it for the duration of one turn only).
   */
  authorization?: (() => string | undefined) | undefined;
  timeoutMs?: number | undefined;
  /** Per tool call; MCP_CALL_TIMEOUT_MS when absent. */
  callTimeoutMs?: number | undefined;
}

export interface ToolCallOutcome {
  text: string;
  isError: boolean;
}

const open = new Set<McpConnection>();

/** Connections not yet closed, optionally only those to one URL (tests use this to prove shutdown). */
export function openMcpConnections(url?: string): number {
  let count = 0;
  for (const connection of open) if (url === undefined || connection.url === url) count++;
  return count;
}

/**
 * Failures that mean the connection itself is gone (the server forgot the session: 404, or the
 * transport broke), as opposed to one tool failing. The owner then reconnects on the next turn.
 */
function breaksConnection(error: unknown): boolean {
  if (error instanceof SdkHttpError) return error.status === 404;
  if (error instanceof SdkError) return error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected || error.code === SdkErrorCode.SendFailed;
  return error instanceof TypeError;
}

export class McpConnection {
  private closed = false;
  private broken = false;

  constructor(
    readonly url: string,
    private readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
    private readonly callTimeoutMs = MCP_CALL_TIMEOUT_MS,
  ) {
    open.add(this);
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Open and not known to be broken: worth keeping for the next turn. */
  get healthy(): boolean {
    return !this.closed && !this.broken;
  }

  /** The server's session id (2025-era servers with sessions), for logs and shutdown checks. */
  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** Never throws: transport failures and timeouts come back as an error outcome the model can read. */
  async callTool(name: string, args: Record<string, unknown>, timeoutMs = this.callTimeoutMs): Promise<ToolCallOutcome> {
    if (this.closed) return { text: `The MCP connection to ${this.url} is closed`, isError: true };
    try {
      const result = await this.client.callTool({ name, arguments: args }, { timeout: timeoutMs });
      return { text: resultText(result), isError: result.isError === true };
    } catch (error) {
      if (breaksConnection(error)) this.broken = true;
      log.error("agent mcp tool call failed", { url: this.url, tool: name, error: describe(error), connection_lost: this.broken });
      return { text: `The tool ${name} failed: ${describe(error)}`, isError: true };
    }
  }

  /** Ends a 2025-era session on the server (DELETE), then closes the client. Idempotent; never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    open.delete(this);
    if (this.transport.sessionId) await this.transport.terminateSession().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}

export interface LoadedMcp {
  connection: McpConnection | undefined;
  tools: McpToolSpec[];
  /** Human-readable start-up problems, shown to the user with the reply. */
  warnings: string[];
  /** Whether a connection was attempted and failed (the caller may retry later). */
  failed: boolean;
}

export async function loadMcpTools(target: McpTarget): Promise<LoadedMcp> {
  const raw = target.url?.trim() ?? "";
  if (raw === "") {
    log.info("agent mcp not configured", { reason: "MCP_URL is empty" });
    return { connection: undefined, tools: [], warnings: [], failed: false };
  }
  let url: URL;
  try {
    url = new URL(raw);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`unsupported protocol ${url.protocol}`);
  } catch (error) {
    return failure(raw, `MCP_URL is not a valid http(s) URL (${describe(error)})`);
  }

  const timeoutMs = target.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
  const baseFetch: FetchLike = target.fetch ?? ((input, init) => fetch(input, init));
  const authorization = target.authorization;
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: (input, init) => {
      const header = authorization?.();
      if (!header) return baseFetch(input, init);
      const headers = new Headers(init?.headers);
      headers.set("authorization", header);
      return baseFetch(input, { ...init, headers });
    },
  });
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
  const started = Date.now();
  // One deadline for connect + every tools/list page: a server that accepts the TCP connection
  // and then says nothing must not hold the first message longer than this.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const tools = await Promise.race([listAll(client, transport, timeoutMs), deadline]);
    const connection = new McpConnection(url.href, client, transport, target.callTimeoutMs);
    const warnings: string[] = [];
    if (tools.length === 0) {
      warnings.push(`The MCP server at ${url.href} has no tools; running with the agent's own tools only.`);
      log.warn("agent mcp server has no tools", { url: url.href });
    } else {
      log.info("agent mcp tools loaded", { url: url.href, tools: tools.length, ms: Date.now() - started });
    }
    return { connection, tools, warnings, failed: false };
  } catch (error) {
    await client.close().catch(() => undefined);
    return failure(url.href, describe(error));
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

async function listAll(client: Client, transport: StreamableHTTPClientTransport, timeoutMs: number): Promise<McpToolSpec[]> {
  await client.connect(transport, { timeout: timeoutMs });
  const tools: McpToolSpec[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
    for (const tool of result.tools) {
      tools.push({ name: tool.name, description: tool.description ?? tool.title ?? "", inputSchema: { ...tool.inputSchema } });
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`tools/list did not end after ${MAX_LIST_PAGES} pages`);
}

function failure(url: string, reason: string): LoadedMcp {
  log.error("agent mcp unavailable", { url, error: reason });
  return {
    connection: undefined,
    tools: [],
    warnings: [`Could not load tools from the MCP server at ${url}: ${reason}. Running with the agent's own tools only.`],
    failed: true,
  };
}

function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as { type?: string; text?: unknown }[]) : [];
  const text = blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
  if (text !== "") return text;
  return result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);
}

/** Error text without secrets: SDK errors name the status or the failure, never request headers. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // "fetch failed" says little; its causes name the refusal (ECONNREFUSED) or the DNS failure.
  let text = error.message;
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++, cause = cause.cause) {
    const more = "code" in cause && typeof cause.code === "string" && !cause.message.includes(cause.code) ? `${cause.message} ${cause.code}` : cause.message;
    if (!text.includes(more)) text += ` (${more})`;
  }
  return text;
}
