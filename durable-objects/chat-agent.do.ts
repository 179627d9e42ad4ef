/**
 * ChatAgent: one Durable Object per user, named by the user id. It keeps the conversation in its
 * own SQLite (the newest MAX_STORED_MESSAGES messages, i.e. 50 turns) and runs the runtime-neutral
 * agent (workers/agent/chat-session.ts) while warm.
 *
 * It lives in the chat agent's own Worker (workers/agent-worker/worker.ts), reached from the main Worker's
 * /api/chat through the ChatService entrypoint. It imports no library at load: the agent core (the
 * AI SDK, the model providers, the MCP client) is imported by the first message, and the object is
 * a plain Durable Object (SQLite and one alarm are all it needs), not an Agents SDK `Agent`
 * (docs/decisions/0034-built-on-first-use.md).
 *
 * MCP is connected lazily by the first message — never in the constructor — and kept while warm.
 * shutdown() closes every connection; it is called by DELETE /api/chat and by an idle alarm
 * IDLE_SECONDS after the last message, so an idle agent holds nothing open.
 *
 * Each message arrives with the caller's principal (who they are, their scopes, the resource their
 * token was for), never a token. For MCP on the main Worker's own origin the turn's requests go to
 * the main Worker over the MCP_EDGE binding with that principal, for that turn only; nothing of it
 * is stored but the conversation itself.
 */
import { DurableObject } from "cloudflare:workers";
import type { ChatEvent, ChatFailure, ChatOutcome, ChatRequest, ChatResult, ChatToolCall, HistoryMessage } from "../workers/agent/agent.types";
import type { ChatSession } from "../workers/agent/chat-session";
import type { PrincipalWire } from "../workers/auth/principal-wire";
import { toAppError } from "../workers/lib/errors";
import { onFirstUse } from "../workers/lib/first-use";
import { log } from "../workers/lib/log";

/** The agent core and its libraries, imported by the first message an isolate's agents receive. */
const agentCore = onFirstUse(async () => {
  const [{ ChatSession }, { turnMcpAccess, sessionOptions }, { principalWire }] = await Promise.all([
    import("../workers/agent/chat-session"),
    import("../workers/agent-worker/worker-config"),
    import("../workers/auth/principal-wire"),
  ]);
  return { ChatSession, turnMcpAccess, sessionOptions, principalWire };
});

export const MAX_STORED_MESSAGES = 100;
/** Messages of context the model gets with each new one. */
export const HISTORY_FOR_MODEL = 20;
export const IDLE_SECONDS = 600;
const MAX_STORED_RESULT_CHARS = 4_000;

export interface ChatInput extends ChatRequest {
  /** Who is asking, as the main Worker authenticated them: this object's user, for this turn only. */
  principal: PrincipalWire;
}

export interface ChatAgentStatus {
  mcp_connected: boolean;
  messages: number;
  idle_shutdown_scheduled: boolean;
}

type MessageRow = {
  role: string;
  text: string;
  tool_calls: string | null;
  at: string;
};

export class ChatAgent extends DurableObject<AgentEnv> {
  private session: ChatSession | undefined;
  private lastActivity = 0;

  constructor(ctx: DurableObjectState, env: AgentEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS chat_messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      role TEXT NOT NULL,
      text TEXT NOT NULL,
      tool_calls TEXT,
      at TEXT NOT NULL
    )`);
  }

  /** One message, answered as a whole (POST /api/chat with JSON). */
  async chat(input: ChatInput): Promise<ChatOutcome> {
    try {
      return { ok: true, result: await this.respond(input, () => undefined) };
    } catch (error) {
      return { ok: false, ...this.failure(error) };
    }
  }

  /** One message, answered as SSE bytes: tool_call/tool_result pairs, reply, done (or error). */
  chatStream(input: ChatInput): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const send = (event: ChatEvent) => {
      writer.write(encoder.encode(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`)).catch(() => undefined);
    };
    this.respond(input, send)
      .then((result) => send({ event: "done", data: result }))
      .catch((error: unknown) => send({ event: "error", data: { error: this.failure(error) } }))
      .finally(() => writer.close().catch(() => undefined));
    return readable;
  }

  history(): HistoryMessage[] {
    return this.ctx.storage.sql.exec<MessageRow>("SELECT role, text, tool_calls, at FROM chat_messages ORDER BY seq").toArray().map(toMessage);
  }

  /** Forgets the conversation and closes every connection (DELETE /api/chat). */
  async reset(): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM chat_messages");
    await this.shutdown();
  }

  /** Closes the MCP connection and cancels the idle alarm; the next message reconnects lazily. */
  async shutdown(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.close();
    await this.ctx.storage.deleteAlarm();
  }

  /** The idle alarm: IDLE_SECONDS after the last message (re-armed by each one). */
  override async alarm(): Promise<void> {
    await this.idleShutdown();
  }

  /** Shuts down unless a message came in since the alarm was set (an alarm may fire early or late). */
  async idleShutdown(): Promise<void> {
    if (Date.now() - this.lastActivity < IDLE_SECONDS * 1000 - 1_000) return;
    log.info("chat agent idle shutdown", { agent: this.ctx.id.toString() });
    await this.shutdown();
  }

  async status(): Promise<ChatAgentStatus> {
    const count = this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM chat_messages").one().n;
    const alarm = await this.ctx.storage.getAlarm();
    return { mcp_connected: this.session?.connected ?? false, messages: count, idle_shutdown_scheduled: alarm !== null };
  }

  private async respond(input: ChatInput, onEvent: (event: ChatEvent) => void): Promise<ChatResult> {
    const core = await agentCore();
    const principal = core.principalWire.parse(input.principal);
    // Each user has the object named by their id: a message for anyone else is a routing bug.
    if (!this.ctx.id.equals(this.env.CHAT_AGENT.idFromName(String(principal.user.id)))) {
      throw new Error(`chat agent ${this.ctx.id.toString()} got a message for user ${principal.user.id}`);
    }
    this.lastActivity = Date.now();
    this.session ??= new core.ChatSession(core.sessionOptions(this.env));
    const history = this.recentHistory();
    const result = await this.session.chat({
      message: input.message,
      history,
      identity: { userId: principal.user.id, name: principal.user.name },
      ...core.turnMcpAccess(this.env, principal),
      timeZone: input.timeZone,
      // The session's own "done" would come before the turn is stored; this object sends it after.
      onEvent: (event) => {
        if (event.event !== "done") onEvent(event);
      },
    });
    const at = new Date().toISOString();
    const sql = this.ctx.storage.sql;
    sql.exec("INSERT INTO chat_messages (role, text, tool_calls, at) VALUES ('user', ?, NULL, ?)", input.message, at);
    sql.exec("INSERT INTO chat_messages (role, text, tool_calls, at) VALUES ('assistant', ?, ?, ?)", result.reply, JSON.stringify(result.tool_calls.map(stored)), at);
    sql.exec("DELETE FROM chat_messages WHERE seq <= (SELECT MAX(seq) FROM chat_messages) - ?", MAX_STORED_MESSAGES);
    // One alarm per object: setting it again moves it, so each message re-arms the idle shutdown.
    await this.ctx.storage.setAlarm(Date.now() + IDLE_SECONDS * 1000);
    return result;
  }

  private recentHistory(): HistoryMessage[] {
    return this.ctx.storage.sql
      .exec<MessageRow>(
        `SELECT role, text, tool_calls, at FROM (
          SELECT seq, role, text, tool_calls, at FROM chat_messages ORDER BY seq DESC LIMIT ?
        ) ORDER BY seq`,
        HISTORY_FOR_MODEL,
      )
      .toArray()
      .map(toMessage);
  }

  private failure(error: unknown): ChatFailure {
    const appError = toAppError(error);
    if (appError.code === "internal") {
      log.error("chat agent turn failed", { agent: this.ctx.id.toString(), error: String(error), stack: error instanceof Error ? error.stack : undefined });
      return { code: "unavailable", message: "The agent could not answer this message; it has been logged" };
    }
    const retryAfter = appError.details?.["retry_after_ms"];
    return { code: appError.code, message: appError.message, ...(typeof retryAfter === "number" ? { retry_after_ms: retryAfter } : {}) };
  }
}

function stored(call: ChatToolCall): ChatToolCall {
  return call.result.length > MAX_STORED_RESULT_CHARS ? { ...call, result: `${call.result.slice(0, MAX_STORED_RESULT_CHARS)}…` } : call;
}

function toMessage(row: MessageRow): HistoryMessage {
  const message: HistoryMessage = { role: row.role === "user" ? "user" : "assistant", text: row.text, at: row.at };
  if (row.tool_calls) message.tool_calls = JSON.parse(row.tool_calls) as ChatToolCall[];
  return message;
}
