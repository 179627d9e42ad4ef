/**
 * Everything one MCP request's data point and span say, in one place (decision 0064), so the two
 * can never disagree: built by the HTTP layer once the answer is known (http/mcp-telemetry.ts).
 */
import type { McpRequestTelemetry } from "./mcp-request";
import { mcpOutcome } from "./mcp-outcome";

/** Who sent the request: the internet or the chat agent (over its service binding). */
export type McpCaller = "outside" | "agent";

export interface McpRequestSummary {
  /** `gateway` for /mcp, else the server's name (`tasks` for /mcp/tasks). */
  server: string;
  caller: McpCaller;
  /** The method; for a batch, its one method or `batch`; `unknown` when no body was read. */
  method: string;
  /** The tool (tools/call) or prompt (prompts/get) named, when the request names exactly one. */
  target: string | null;
  /** The JSON-RPC id of a single request. */
  requestId: string | number | null;
  /** The gateway source that served the call (`<slug>`, or `builtin:<server>`); "" when no tool call was audited. */
  source: string;
  outcome: string;
  errorCode: string;
  clientName: string;
  clientVersion: string;
  protocolVersion: string;
  oauthClientId: string;
  httpStatus: number;
  durationMs: number;
  /** The tool calls' own time as the audit measured it (the upstream's answer, or the built-in tool's run); 0 without one. */
  upstreamMs: number;
  /** JSON-RPC messages in the body (more than one only in a 2025-03-26 batch). */
  messages: number;
  toolCalls: number;
}

export interface ServedMcpRequest {
  path: string;
  caller: McpCaller;
  /** The MCP-Protocol-Version header, for a request refused before its body was read. */
  protocolHeader: string | null;
  status: number;
  /** The JSON answer when it was read; undefined otherwise. */
  answer: unknown;
  durationMs: number;
  /** What the request learned; undefined when it was refused before its services were built (authentication). */
  learned: McpRequestTelemetry | undefined;
}

/** `/mcp` → gateway, `/mcp/<server>` → the server. */
export function serverOfPath(path: string): string {
  const name = path.replace(/\/+$/, "").slice("/mcp/".length);
  return name === "" ? "gateway" : name.slice(0, 64);
}

const REVISION = /^\d{4}-\d{2}-\d{2}$/;

export function summarizeMcpRequest(served: ServedMcpRequest): McpRequestSummary {
  const messages = served.learned?.messages ?? [];
  const toolCalls = served.learned?.toolCalls ?? [];
  const methods = new Set(messages.map((message) => message.method));
  const single = messages.length === 1 ? messages[0] : undefined;
  const targets = new Set(messages.flatMap((message) => (message.target === null ? [] : [message.target])));
  const client = served.learned?.client;
  const header = served.protocolHeader !== null && REVISION.test(served.protocolHeader) ? served.protocolHeader : null;
  const { outcome, errorCode } = mcpOutcome(served.status, served.answer, toolCalls);
  return {
    server: serverOfPath(served.path),
    caller: served.caller,
    method: methods.size === 1 ? [...methods][0]! : methods.size === 0 ? "unknown" : "batch",
    target: targets.size === 1 ? [...targets][0]! : null,
    requestId: single?.id ?? null,
    source: toolCalls[0]?.source ?? "",
    outcome,
    errorCode,
    clientName: client?.name ?? "",
    clientVersion: client?.version ?? "",
    protocolVersion: client?.protocol_version ?? header ?? "",
    oauthClientId: client?.oauth_client_id ?? "",
    httpStatus: served.status,
    durationMs: Math.max(0, served.durationMs),
    upstreamMs: toolCalls.reduce((total, call) => total + Math.max(0, call.durationMs), 0),
    messages: messages.length,
    toolCalls: toolCalls.length,
  };
}
