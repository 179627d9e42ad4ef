/**
 * The agent's MCP tool loader: connect to MCP_URL (5 s for connect + tools/list together), list
 * the tools, and hand back a live connection to call them on. It NEVER throws: an invalid URL, a
 * refused connection, a timeout, an auth failure or any other error is logged as an error and
 * turned into a warning, and the agent runs on its own tools. An empty list is a warning; an
 * empty MCP_URL means "not configured" (info only, nothing is attempted).
 *
 * The connection itself is the shared outbound MCP client (workers/mcp-client/), negotiating the
 * newest protocol revision the server offers. Every open connection sits in a registry until
 * close(), so "nothing left open after shutdown" is observable (openMcpConnections) rather than
 * assumed. Runtime-neutral: the caller supplies `fetch` (the agent Worker passes one over its
 * MCP_EDGE binding for the main Worker's origin, worker-config.ts; otherwise the global is used).
 */
import {
  callMcpTool,
  closeMcp,
  connectMcp,
  type FetchLike,
  listAllTools,
  type McpClientConnection,
  sessionIdOf,
} from "../mcp-client/connect";
import { describeError, McpClientError } from "../mcp-client/errors";
import { log } from "../lib/log";
import { visibleToModel } from "./tool-visibility";

export const MCP_CONNECT_TIMEOUT_MS = 5_000;
/** A tool call through MCP gets this long before the agent reports it as failed. */
export const MCP_CALL_TIMEOUT_MS = 30_000;
const CLIENT_NAME = "mcp-edge-agent";

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
function breaksConnection(error: McpClientError): boolean {
  if (error.httpStatus !== undefined) return error.httpStatus === 404;
  return error.type === "connection";
}

export class McpConnection {
  private closed = false;
  private broken = false;

  constructor(
    readonly url: string,
    private readonly connection: McpClientConnection,
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
    return sessionIdOf(this.connection) ?? undefined;
  }

  /** Never throws: transport failures and timeouts come back as an error outcome the model can read. */
  async callTool(name: string, args: Record<string, unknown>, timeoutMs = this.callTimeoutMs): Promise<ToolCallOutcome> {
    if (this.closed) return { text: `The MCP connection to ${this.url} is closed`, isError: true };
    try {
      const result = await callMcpTool(this.connection, name, args, timeoutMs);
      return { text: resultText(result), isError: result.isError === true };
    } catch (error) {
      const failure = error instanceof McpClientError ? error : undefined;
      if (failure && breaksConnection(failure)) this.broken = true;
      const reason = describeError(failure?.cause ?? error);
      log.error("agent mcp tool call failed", { url: this.url, tool: name, error: reason, connection_lost: this.broken });
      return { text: `The tool ${name} failed: ${reason}`, isError: true };
    }
  }

  /** Ends a 2025-era session on the server (DELETE, bounded wait), then closes the client. Idempotent; never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    open.delete(this);
    await closeMcp(this.connection);
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
    return failure(raw, `MCP_URL is not a valid http(s) URL (${describeError(error)})`);
  }

  const timeoutMs = target.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
  const baseFetch: FetchLike = target.fetch ?? ((input, init) => fetch(input, init));
  const authorization = target.authorization;
  const endpoint = {
    url: url.href,
    fetch: (input: string | URL, init?: RequestInit) => {
      const header = authorization?.();
      if (!header) return baseFetch(input, init);
      const headers = new Headers(init?.headers);
      headers.set("authorization", header);
      return baseFetch(input, { ...init, headers });
    },
  };
  const started = Date.now();
  // One deadline for connect + every tools/list page: a server that accepts the TCP connection
  // and then says nothing must not hold the first message longer than this.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  let connection: McpClientConnection | undefined;
  const pending = (async () => {
    connection = await connectMcp(endpoint, { clientName: CLIENT_NAME, timeoutMs, negotiation: "auto" });
    return listAllTools(connection, timeoutMs);
  })();
  try {
    const { tools } = await Promise.race([pending, deadline]);
    // Tools an MCP App alone may call (`_meta.ui.visibility` without "model") are not the model's.
    const specs = tools.filter(visibleToModel).map((tool) => ({
      name: tool.name,
      description: tool.description ?? tool.title ?? "",
      inputSchema: { ...tool.inputSchema },
    }));
    const live = new McpConnection(url.href, connection!, target.callTimeoutMs);
    const warnings: string[] = [];
    if (specs.length === 0) {
      warnings.push(`The MCP server at ${url.href} has no tools; running with the agent's own tools only.`);
      log.warn("agent mcp server has no tools", { url: url.href });
    } else {
      log.info("agent mcp tools loaded", { url: url.href, tools: specs.length, ms: Date.now() - started });
    }
    return { connection: live, tools: specs, warnings, failed: false };
  } catch (error) {
    // The deadline may win while connecting: whatever opens is closed again once it settles.
    const closeOpened = () => (connection ? closeMcp(connection) : undefined);
    void pending.then(closeOpened, closeOpened);
    return failure(url.href, describeError(error instanceof McpClientError ? (error.cause ?? error) : error));
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
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
