/**
 * The chat agent's public shapes: what POST /api/chat answers, the SSE events, and
 * the stored conversation. Runtime-neutral: the Worker, its Durable Object and `mcp-edge chat` share them.
 */

/** One tool call the agent made during a turn, with its outcome. */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  is_error: boolean;
  duration_ms: number;
  /** The tool's text content (what a person reads). */
  result: string;
}

export interface ChatResult {
  reply: string;
  tool_calls: ChatToolCall[];
  /** "local-intent-router", "workers-ai:@cf/…", "openai:<model>". */
  model: string;
  /** MCP start-up warnings (unreachable server, empty tool list, replaced tools). */
  warnings: string[];
}

/** Streamed as SSE events of the same names, in this order: tool_call/tool_result pairs, reply, done. */
export type ChatEvent =
  | { event: "tool_call"; data: { id: string; name: string; arguments: Record<string, unknown> } }
  | { event: "tool_result"; data: { id: string; name: string; is_error: boolean; duration_ms: number; result: string } }
  | { event: "reply"; data: { text: string } }
  | { event: "done"; data: ChatResult }
  | { event: "error"; data: { error: { code: string; message: string } } };

export interface HistoryMessage {
  role: "user" | "assistant";
  text: string;
  tool_calls?: ChatToolCall[];
  /** ISO time the message was stored. */
  at: string;
}

/** One message for the agent, validated by the main Worker's /api/chat (workers/chat/chat.routes.ts). */
export interface ChatRequest {
  /** Trimmed, 1..4000 characters. */
  message: string;
  /** An IANA time zone; absent = UTC. */
  timeZone?: string | undefined;
}

/** Who is chatting, from authentication only; the model never supplies it. */
export interface ChatIdentity {
  userId: number;
  name?: string | undefined;
}

/** What the ChatAgent answers over RPC. A failure is a value, not a throw: an error's class does not survive the RPC boundary. */
/** A failure carries the model's retry hint when it was busy, so /api/chat can send Retry-After. */
export type ChatFailure = { code: string; message: string; retry_after_ms?: number };
export type ChatOutcome = { ok: true; result: ChatResult } | ({ ok: false } & ChatFailure);
