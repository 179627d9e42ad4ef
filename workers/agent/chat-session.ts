/**
 * The runtime-neutral agent: a lazily connected MCP tool set plus the agent's own tools, and one
 * chat turn at a time through the selected model. The ChatAgent Durable Object keeps one per user
 * while warm; `mcp-edge chat` keeps one per terminal session. Nothing here is Worker-only.
 *
 * MCP is connected on the first turn, never before (lazy), kept while the session lives, and
 * closed by close(). A failed connection is retried on a later turn after RETRY_AFTER_MS, so one
 * bad moment does not cost the MCP tools for the whole warm period; a connection that lost its
 * server (a forgotten session, a broken transport) is replaced on the next turn.
 */
import type { FetchLike } from "../mcp-client/connect";
import type { ChatEvent, ChatIdentity, ChatResult, HistoryMessage } from "./agent.types";
import { runTurn } from "./chat-loop";
import { type LoadedMcp, type McpConnection, loadMcpTools } from "./mcp-tool-loader";
import { type ModelConfig, selectModel } from "./models/select";
import { type AgentTool, mcpTool, mergeTools, ownTools } from "./tools";
import { resolveTimeZone } from "./intent/zoned-time";

export const RETRY_AFTER_MS = 30_000;

export interface ChatSessionOptions {
  /** MCP_URL; empty or undefined = no MCP tools. */
  mcpUrl: string | undefined;
  /** How MCP requests go out when a turn does not say (the global fetch when absent). */
  fetch?: FetchLike | undefined;
  mcpTimeoutMs?: number | undefined;
  mcpCallTimeoutMs?: number | undefined;
  model: ModelConfig;
}

/** How THIS turn's MCP requests reach the server; never kept after the turn. */
export interface TurnMcpAccess {
  /**
   * Sends each request (the agent Worker: to the main Worker over its binding, for the caller's
   * principal); absent = the session's fetch.
   */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** "Bearer …" added to each request. */
  authorization?: string | undefined;
}

export interface TurnRequest extends TurnMcpAccess {
  message: string;
  history: readonly HistoryMessage[];
  /** From authentication; injected into identity properties of tool calls. */
  identity?: ChatIdentity | undefined;
  timeZone?: string | undefined;
  now?: Date | undefined;
  onEvent?: ((event: ChatEvent) => void) | undefined;
}

export class ChatSession {
  private mcp: LoadedMcp | undefined;
  private loadedAt = 0;
  /** The turn in progress's MCP access: set when it starts, cleared when it ends. */
  private access: TurnMcpAccess = {};
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ChatSessionOptions) {}

  /** Whether an MCP connection is open right now. */
  get connected(): boolean {
    return this.mcp?.connection?.isOpen ?? false;
  }

  /** The open MCP connection, if any (for status and shutdown checks). */
  get connection(): McpConnection | undefined {
    return this.mcp?.connection?.isOpen ? this.mcp.connection : undefined;
  }

  /** Turns run one after another: one turn's MCP access must never serve another turn. */
  chat(request: TurnRequest): Promise<ChatResult> {
    const run = this.queue.then(() => this.turn(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Closes the MCP connection, leaving none open; a later turn connects again, lazily. Waits for a
   * turn in progress, so its tool calls are not cut off. Never throws.
   */
  close(): Promise<void> {
    const run = this.queue.then(async () => {
      const connection = this.mcp?.connection;
      this.mcp = undefined;
      this.loadedAt = 0;
      await connection?.close();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ensureMcp(): Promise<LoadedMcp> {
    // A connection that lost its server (restart, forgotten session) is replaced, not kept.
    if (this.mcp?.connection && !this.mcp.connection.healthy) {
      await this.mcp.connection.close();
      this.mcp = undefined;
    }
    const stale = this.mcp?.failed === true && Date.now() - this.loadedAt >= RETRY_AFTER_MS;
    if (this.mcp && !stale) return this.mcp;
    this.mcp = await loadMcpTools({
      url: this.options.mcpUrl,
      // Read on every request, so a connection kept from an earlier turn sends this turn's access.
      fetch: (input, init) => {
        const turnFetch = this.access.fetch;
        if (turnFetch) return turnFetch(new Request(input, init));
        return this.options.fetch ? this.options.fetch(input, init) : fetch(input, init);
      },
      timeoutMs: this.options.mcpTimeoutMs,
      callTimeoutMs: this.options.mcpCallTimeoutMs,
      authorization: () => this.access.authorization,
    });
    this.loadedAt = Date.now();
    return this.mcp;
  }

  private async turn(request: TurnRequest): Promise<ChatResult> {
    this.access = { fetch: request.fetch, authorization: request.authorization };
    try {
      const mcp = await this.ensureMcp();
      const now = request.now ?? new Date();
      const timeZone = resolveTimeZone(request.timeZone);
      let tools: AgentTool[] = [];
      const own = ownTools(() => tools);
      const merged = mergeTools(own, mcp.connection ? mcp.tools.map((spec) => mcpTool(spec, mcp.connection!)) : []);
      tools = merged.tools;
      const selected = selectModel(this.options.model, { now: () => now, timeZone });
      const output = await runTurn({
        model: selected.model,
        instructions: selected.needsInstructions ? instructions(now, timeZone, request.identity) : undefined,
        tools,
        history: request.history,
        message: request.message,
        context: { now, timeZone, identity: request.identity },
        onEvent: request.onEvent,
      });
      const result: ChatResult = { ...output, model: selected.label, warnings: [...mcp.warnings, ...merged.warnings] };
      request.onEvent?.({ event: "done", data: result });
      return result;
    } finally {
      this.access = {};
    }
  }
}

function instructions(now: Date, timeZone: string, identity: ChatIdentity | undefined): string {
  return [
    "You are the mcp-edge assistant. You manage the user's tasks and answer with the tools you are given.",
    `The current time is ${now.toISOString()} (UTC); the user's time zone is ${timeZone}. Give tools dates as ISO 8601 UTC instants.`,
    "The user's identity is handled for you: never ask for or invent a user id.",
    identity?.name ? `The user's name is ${identity.name}.` : "",
    "Reply briefly, in the language the user wrote in (English or Roman Urdu), and say what the tools did.",
  ]
    .filter(Boolean)
    .join("\n");
}
