/**
 * What one MCP request taught the Worker while it was served, gathered for its telemetry (decision
 * 0064): the messages of its body (told once by the MCP hosting layer, with the client facts it read
 * for the tool-call audit) and the tool calls the audit recorded (the source that served each and how
 * long it took). One per request, built with the request's services (workers/services.ts); it holds
 * only what the data point and the span say, never argument or result values.
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

function messageOf(value: unknown): McpMessage | undefined {
  if (!isJsonObject(value)) return undefined;
  const method = text(value["method"], MAX_METHOD);
  if (!method) return undefined;
  const params = value["params"];
  const named = isJsonObject(params) && (method === "tools/call" || method === "prompts/get") ? text(params["name"], MAX_TARGET) : null;
  const id = value["id"];
  return { method, target: named, id: typeof id === "string" || typeof id === "number" ? id : null };
}

export class McpRequestTelemetry {
  private messagesRead: McpMessage[] | undefined;
  private clientRead: McpClient | undefined;
  private readonly calls: ObservedToolCall[] = [];

  /** The parsed POST body and the client it names; called once per request, before any check refuses it. */
  learn(body: unknown, client: McpClient): void {
    this.messagesRead = (Array.isArray(body) ? body : [body]).flatMap((message) => messageOf(message) ?? []);
    this.clientRead = client;
  }

  /** A tool call of this request, as the tool-call audit recorded it. */
  observeToolCall(call: ObservedToolCall): void {
    this.calls.push(call);
  }

  /** The body's messages; empty when no body was read (refused before, not JSON, a GET). */
  get messages(): readonly McpMessage[] {
    return this.messagesRead ?? [];
  }

  get client(): McpClient | undefined {
    return this.clientRead;
  }

  get toolCalls(): readonly ObservedToolCall[] {
    return this.calls;
  }
}
