/**
 * ChatAgent: one Durable Object per user, named by the user id, in the chat agent's own Worker
 * (workers/agent-worker/worker.ts), reached from the main Worker's /api/chat through the
 * ChatService entrypoint. It hosts the user's conversation in its SQLite and one alarm (the idle
 * shutdown); the turns, the warm MCP session and the shutdown are workers/agent-worker/chat-turns.ts,
 * over conversation.ts. A plain Durable Object (SQLite and one alarm are all it needs), not an
 * Agents SDK `Agent`, and it imports no library at load (docs/decisions/0034-built-on-first-use.md).
 */
import { DurableObject } from "cloudflare:workers";
import type { ChatOutcome, HistoryMessage } from "../workers/agent/agent.types";
import { type ChatAgentStatus, type ChatInput, ChatTurns } from "../workers/agent-worker/chat-turns";
import { Conversation } from "../workers/agent-worker/conversation";

export class ChatAgent extends DurableObject<AgentEnv> {
  private readonly turns: ChatTurns;

  constructor(ctx: DurableObjectState, env: AgentEnv) {
    super(ctx, env);
    this.turns = new ChatTurns({
      conversation: new Conversation(ctx.storage.sql),
      alarm: ctx.storage,
      env,
      name: ctx.id.toString(),
      isFor: (userId) => ctx.id.equals(env.CHAT_AGENT.idFromName(String(userId))),
    });
  }

  /** One message, answered as a whole (POST /api/chat with JSON). */
  async chat(input: ChatInput): Promise<ChatOutcome> {
    return this.turns.chat(input);
  }

  /** One message, answered as SSE bytes: tool_call/tool_result pairs, reply, done (or error). */
  chatStream(input: ChatInput): ReadableStream<Uint8Array> {
    return this.turns.chatStream(input);
  }

  history(): HistoryMessage[] {
    return this.turns.history();
  }

  /** Forgets the conversation and closes every connection (DELETE /api/chat). */
  async reset(): Promise<void> {
    await this.turns.reset();
  }

  /** Closes the MCP connection and cancels the idle alarm; the next message reconnects lazily. */
  async shutdown(): Promise<void> {
    await this.turns.shutdown();
  }

  /** The idle alarm: IDLE_SECONDS after the last message (re-armed by each one). */
  override async alarm(): Promise<void> {
    await this.turns.idleShutdown();
  }

  /** Shuts down unless a message came in since the alarm was set (an alarm may fire early or late). */
  async idleShutdown(): Promise<void> {
    await this.turns.idleShutdown();
  }

  async status(): Promise<ChatAgentStatus> {
    return this.turns.status();
  }
}
