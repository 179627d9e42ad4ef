/**
 * A user's chat as their ChatAgent object runs it (durable-objects/chat-agent.do.ts hosts it: one
 * object per user, named by the user id): each message's turn through the runtime-neutral agent
 * (workers/agent/chat-session.ts), the stored conversation (conversation.ts), and the MCP
 * connection kept while warm.
 *
 * Nothing here imports a library at load: the agent core (the AI SDK, the model providers, the MCP
 * client) is imported by the first message (docs/decisions/0034-built-on-first-use.md). MCP is
 * connected lazily by the first message — never before — and kept while warm. shutdown() closes
 * every connection; it is called by DELETE /api/chat and by an idle alarm IDLE_SECONDS after the
 * last message, so an idle agent holds nothing open.
 *
 * Each message arrives with the caller's principal (who they are, their scopes, the resource their
 * token was for), never a token. For MCP on the main Worker's own origin the turn's requests go to
 * the main Worker over the MCP_EDGE binding with that principal, for that turn only; nothing of it
 * is stored but the conversation itself.
 */
import type { ChatEvent, ChatFailure, ChatOutcome, ChatRequest, ChatResult, HistoryMessage } from "../agent/agent.types";
import type { ChatSession } from "../agent/chat-session";
import type { PrincipalWire } from "../auth/principal-wire";
import { toAppError } from "../lib/errors";
import { onFirstUse } from "../lib/first-use";
import { log } from "../lib/log";
import type { Conversation } from "./conversation";

/** The agent core and its libraries, imported by the first message an isolate's agents receive. */
const agentCore = onFirstUse(async () => {
  const [{ ChatSession }, { turnMcpAccess, sessionOptions }, { principalWire }] = await Promise.all([
    import("../agent/chat-session"),
    import("./worker-config"),
    import("../auth/principal-wire"),
  ]);
  return { ChatSession, turnMcpAccess, sessionOptions, principalWire };
});

export const IDLE_SECONDS = 600;

export interface ChatInput extends ChatRequest {
  /** Who is asking, as the main Worker authenticated them: this object's user, for this turn only. */
  principal: PrincipalWire;
}

export interface ChatAgentStatus {
  mcp_connected: boolean;
  messages: number;
  idle_shutdown_scheduled: boolean;
}

/** What the hosting object lends: its stored conversation, its one alarm, its bindings, and who it is. */
export interface ChatHost {
  conversation: Conversation;
  /** The object's only alarm: the idle shutdown. */
  alarm: Pick<DurableObjectStorage, "getAlarm" | "setAlarm" | "deleteAlarm">;
  env: AgentEnv;
  /** The object's id, for logs. */
  name: string;
  /** Whether the object is the one named for this user. */
  isFor(userId: number): boolean;
}

export class ChatTurns {
  private session: ChatSession | undefined;
  private lastActivity = 0;

  constructor(private readonly host: ChatHost) {}

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
    return this.host.conversation.all();
  }

  /** Forgets the conversation and closes every connection (DELETE /api/chat). */
  async reset(): Promise<void> {
    this.host.conversation.clear();
    await this.shutdown();
  }

  /** Closes the MCP connection and cancels the idle alarm; the next message reconnects lazily. */
  async shutdown(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.close();
    await this.host.alarm.deleteAlarm();
  }

  /** Shuts down unless a message came in since the alarm was set (an alarm may fire early or late). */
  async idleShutdown(): Promise<void> {
    if (Date.now() - this.lastActivity < IDLE_SECONDS * 1000 - 1_000) return;
    log.info("chat agent idle shutdown", { agent: this.host.name });
    await this.shutdown();
  }

  async status(): Promise<ChatAgentStatus> {
    const messages = this.host.conversation.count();
    const alarm = await this.host.alarm.getAlarm();
    return { mcp_connected: this.session?.connected ?? false, messages, idle_shutdown_scheduled: alarm !== null };
  }

  private async respond(input: ChatInput, onEvent: (event: ChatEvent) => void): Promise<ChatResult> {
    const core = await agentCore();
    const principal = core.principalWire.parse(input.principal);
    // Each user has the object named by their id: a message for anyone else is a routing bug.
    if (!this.host.isFor(principal.user.id)) {
      throw new Error(`chat agent ${this.host.name} got a message for user ${principal.user.id}`);
    }
    this.lastActivity = Date.now();
    this.session ??= new core.ChatSession(core.sessionOptions(this.host.env));
    const history = this.host.conversation.recent();
    const result = await this.session.chat({
      message: input.message,
      history,
      identity: { userId: principal.user.id, name: principal.user.name },
      ...core.turnMcpAccess(this.host.env, principal),
      timeZone: input.timeZone,
      // The session's own "done" would come before the turn is stored; this object sends it after.
      onEvent: (event) => {
        if (event.event !== "done") onEvent(event);
      },
    });
    this.host.conversation.storeTurn(input.message, result);
    // One alarm per object: setting it again moves it, so each message re-arms the idle shutdown.
    await this.host.alarm.setAlarm(Date.now() + IDLE_SECONDS * 1000);
    return result;
  }

  private failure(error: unknown): ChatFailure {
    const appError = toAppError(error);
    if (appError.code === "internal") {
      log.error("chat agent turn failed", {
        agent: this.host.name,
        error: String(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
      return { code: "unavailable", message: "The agent could not answer this message; it has been logged" };
    }
    const retryAfter = appError.details?.["retry_after_ms"];
    return { code: appError.code, message: appError.message, ...(typeof retryAfter === "number" ? { retry_after_ms: retryAfter } : {}) };
  }
}
