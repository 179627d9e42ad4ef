/**
 * What one MCP request taught the Worker while it was served, gathered for its telemetry (decision
 * 0064): the messages of its body (told once by the MCP pipeline, as it already read them, with the
 * client facts it read for the tool-call audit), the tool calls the audit recorded (the source that
 * served each and how long it took), and — when mcp-edge framed the answer itself — that answer's
 * outcome, so the telemetry need not read a copy of the response. One per request, built with the
 * request's services (workers/services.ts); it holds only what the data point and the span say,
 * never argument or result values. Everything is named lazily: the request pays for none of it.
 */
import { isJsonObject } from "../lib/json";

/** The calling client as the MCP layer read it (mcp/client-facts.ts): every field the client's own words, already cleaned. */
export interface McpClient {
  name: string | null;
  version: string | null;
  protocol_version: string | null;
  oauth_client_id: string | null;
}

/** A tool call the audit recorded: the source that served it (`builtin:<server>` for a built-in), its time and outcome. */
export interface ObservedToolCall {
  source: string;
  durationMs: number;
  outcome: string;
}

/** One JSON-RPC message of the body, as far as telemetry names it. */
export interface McpMessage {
  method: string;
  /** The tool of a tools/call, the prompt of a prompts/get: the span's low-cardinality target. */
  target: string | null;
  /** The JSON-RPC id; null for a notification. */
  id: string | number | null;
}

/** Longest tool or prompt name kept: a name longer than any real tool's is the client's, not ours. */
const MAX_TARGET = 128;
const MAX_METHOD = 64;

function text(value: unknown, max: number): string | null {
  return typeof value === "string" && value !== "" ? value.slice(0, max) : null;
}

/** A message of the body as the MCP pipeline read it (mcp/post.ts): the fields telemetry names. */
export interface ReadMessage {
  method: string | undefined;
  id: string | number | undefined;
  params: unknown;
}

function messageOf({ method: sent, id, params }: ReadMessage): McpMessage | undefined {
  const method = text(sent, MAX_METHOD);
  if (!method) return undefined;
  const named = isJsonObject(params) && (method === "tools/call" || method === "prompts/get") ? text(params["name"], MAX_TARGET) : null;
  return { method, target: named, id: id ?? null };
}

/** The JSON-RPC answer mcp-edge framed itself, as far as its outcome goes (telemetry/mcp-outcome.ts reads it). */
export type FramedAnswer = { result: unknown } | { error: { code: number } };

/** Nothing of a successful result matters to its outcome: it is not parsed. */
const SUCCESS: FramedAnswer = { result: {} };

/**
 * A result mcp-edge serialised itself, as its outcome needs it: a tool call's parsed only when it
 * may be a tool error (its `_meta.error.code` names the error); any other result (a listing) is a
 * success. A string value's quotes are escaped in JSON, so only a key can match; a nested `isError`
 * is parsed and read correctly as not the result's own.
 */
export function framedResult(resultJson: string, toolCall: boolean): FramedAnswer {
  return toolCall && resultJson.includes('"isError":true') ? { result: JSON.parse(resultJson) } : SUCCESS;
}

export class McpRequestTelemetry {
  private messagesRead: readonly ReadMessage[] | undefined;
  private messagesNamed: McpMessage[] | undefined;
  private clientRead: McpClient | undefined;
  private answerFramed: FramedAnswer | undefined;
  private readonly calls: ObservedToolCall[] = [];

  /** The body's messages as the pipeline read them, and the client it names; once per request, before any check refuses it. */
  learn(messages: readonly ReadMessage[], client: McpClient): void {
    this.messagesRead = messages;
    this.clientRead = client;
  }

  /** The answer, when mcp-edge framed it (a fast path, a JSON-RPC refusal): the response is then not read again. */
  answered(answer: FramedAnswer): void {
    this.answerFramed = answer;
  }

  get framedAnswer(): FramedAnswer | undefined {
    return this.answerFramed;
  }

  /** A tool call of this request, as the tool-call audit recorded it. */
  observeToolCall(call: ObservedToolCall): void {
    this.calls.push(call);
  }

  /** The body's messages; empty when no body was read (refused before, not JSON, a GET). */
  get messages(): readonly McpMessage[] {
    return (this.messagesNamed ??= (this.messagesRead ?? []).flatMap((message) => messageOf(message) ?? []));
  }

  get client(): McpClient | undefined {
    return this.clientRead;
  }

  get toolCalls(): readonly ObservedToolCall[] {
    return this.calls;
  }
}
