/**
 * ChatAgent: one Agent (Durable Object) per user, named by the user id. It keeps the conversation
 * in its own SQLite (the newest MAX_STORED_MESSAGES messages, i.e. 50 turns) and runs the
 * runtime-neutral agent (workers/agent/chat-session.ts) while warm.
 *
 * MCP is connected lazily by the first message — never in the constructor or onStart — and
 * kept while warm. shutdown() closes every connection; it is called by DELETE /api/chat and by
 * an idle alarm IDLE_SECONDS after the last message, so an idle agent holds nothing open.
 *
 * The user's bearer token arrives with each message (for MCP on the Worker's own origin) and is
 * held in memory for that turn only: it is never written to storage (tested) nor kept after it.
 */
import { Agent } from "agents";
import type { ChatEvent, ChatFailure, ChatOutcome, ChatResult, ChatToolCall, HistoryMessage } from "../workers/agent/agent.types";
import { ChatSession } from "../workers/agent/chat-session";
import { mcpAuthorization, sessionOptions } from "../workers/agent/worker-config";
import { toAppError } from "../workers/lib/errors";
import { log } from "../workers/lib/log";

export const MAX_STORED_MESSAGES = 100;
/** Messages of context the model gets with each new one. */
export const HISTORY_FOR_MODEL = 20;
export const IDLE_SECONDS = 600;
const MAX_STORED_RESULT_CHARS = 4_000;

export interface ChatInput {
  message: string;
  userId: number;
  userName: string;
  /** The requesting user's own bearer token, for this turn only. */
  token: string;
  timeZone?: string | undefined;
}

export interface ChatAgentStatus {
  mcp_connected: boolean;
  messages: number;
  idle_shutdown_scheduled: boolean;
}

interface MessageRow {
  role: string;
  text: string;
  tool_calls: string | null;
  at: string;
}

export class ChatAgent extends Agent<Cloudflare.Env> {
  private session: ChatSession | undefined;
  private lastActivity = 0;
  private idleScheduleId: string | undefined;

  override onStart(): void {
    this.sql`CREATE TABLE IF NOT EXISTS chat_messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      role TEXT NOT NULL,
      text TEXT NOT NULL,
      tool_calls TEXT,
      at TEXT NOT NULL
    )`;
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
    return this.sql<MessageRow>`SELECT role, text, tool_calls, at FROM chat_messages ORDER BY seq`.map(toMessage);
  }

  /** Forgets the conversation and closes every connection (DELETE /api/chat). */
  async reset(): Promise<void> {
    this.sql`DELETE FROM chat_messages`;
    await this.shutdown();
  }

  /** Closes the MCP connection and cancels the idle alarm; the next message reconnects lazily. */
  async shutdown(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.close();
    if (this.idleScheduleId) {
      await this.cancelSchedule(this.idleScheduleId).catch(() => false);
      this.idleScheduleId = undefined;
    }
  }

  /** The idle alarm's callback: shuts down unless a message came in since it was set. */
  async idleShutdown(): Promise<void> {
    if (Date.now() - this.lastActivity < IDLE_SECONDS * 1000 - 1_000) return;
    this.idleScheduleId = undefined;
    log.info("chat agent idle shutdown", { agent: this.name });
    await this.shutdown();
  }

  status(): ChatAgentStatus {
    const count = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM chat_messages`[0]?.n ?? 0;
    return { mcp_connected: this.session?.connected ?? false, messages: count, idle_shutdown_scheduled: this.idleScheduleId !== undefined };
  }

  private async respond(input: ChatInput, onEvent: (event: ChatEvent) => void): Promise<ChatResult> {
    if (String(input.userId) !== this.name) throw new Error(`chat agent ${this.name} got a message for user ${input.userId}`);
    this.lastActivity = Date.now();
    this.session ??= new ChatSession(sessionOptions(this.env));
    const history = this.recentHistory();
    const result = await this.session.chat({
      message: input.message,
      history,
      identity: { userId: input.userId, name: input.userName },
      authorization: mcpAuthorization(this.env, input.token),
      timeZone: input.timeZone,
      // The session's own "done" would come before the turn is stored; this object sends it after.
      onEvent: (event) => {
        if (event.event !== "done") onEvent(event);
      },
    });
    const at = new Date().toISOString();
    this.sql`INSERT INTO chat_messages (role, text, tool_calls, at) VALUES ('user', ${input.message}, NULL, ${at})`;
    this.sql`INSERT INTO chat_messages (role, text, tool_calls, at) VALUES ('assistant', ${result.reply}, ${JSON.stringify(result.tool_calls.map(stored))}, ${at})`;
    this.sql`DELETE FROM chat_messages WHERE seq <= (SELECT MAX(seq) FROM chat_messages) - ${MAX_STORED_MESSAGES}`;
    await this.armIdleShutdown();
    return result;
  }

  private recentHistory(): HistoryMessage[] {
    return this.sql<MessageRow>`SELECT role, text, tool_calls, at FROM (
      SELECT seq, role, text, tool_calls, at FROM chat_messages ORDER BY seq DESC LIMIT ${HISTORY_FOR_MODEL}
    ) ORDER BY seq`.map(toMessage);
  }

  private async armIdleShutdown(): Promise<void> {
    if (this.idleScheduleId) await this.cancelSchedule(this.idleScheduleId).catch(() => false);
    const schedule = await this.schedule(IDLE_SECONDS, "idleShutdown");
    this.idleScheduleId = schedule.id;
  }

  private failure(error: unknown): ChatFailure {
    const appError = toAppError(error);
    if (appError.code === "internal") {
      log.error("chat agent turn failed", { agent: this.name, error: String(error), stack: error instanceof Error ? error.stack : undefined });
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
