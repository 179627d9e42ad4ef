/**
 * One span per MCP request, named and attributed as the OpenTelemetry semantic conventions for MCP
 * servers say (decision 0064): `{mcp.method.name} {target}` (the tool or prompt; the method alone
 * without one), `mcp.method.name`, `gen_ai.tool.name` and `gen_ai.operation.name` for tools/call,
 * `gen_ai.prompt.name`, `jsonrpc.request.id`, `mcp.protocol.version`, `error.type` and
 * `rpc.response.status_code` when it failed. No `mcp.session.id`: every request here is stateless.
 *
 * The span is the runtime's (`tracing` of cloudflare:workers, or the handler context's), through the
 * port below: started around the whole request so D1, Durable Object and fetch spans nest beneath it,
 * renamed and attributed once the request is known. Where no tracer is offered nothing is traced.
 */
import type { McpRequestSummary } from "./mcp-request-summary";

/** The part of the runtime's span this code uses. */
export interface McpSpan {
  setAttributes(attributes: Record<string, string | number | boolean | undefined>): unknown;
  updateName(name: string): unknown;
  setStatus(status: { code: "unset" | "ok" | "error"; message?: string }): unknown;
  end(): void;
}

/** The part of the runtime's `Tracing` this code uses: a span that stays open until `end()`. */
export interface McpTracer {
  startActiveSpan<T>(name: string, callback: (span: McpSpan) => T): T;
}

const NO_SPAN: McpSpan = { setAttributes: () => undefined, updateName: () => undefined, setStatus: () => undefined, end: () => undefined };

/** Where the runtime offers no tracer: the request is served and its data point written, without a span. */
export const UNTRACED: McpTracer = { startActiveSpan: (_name, callback) => callback(NO_SPAN) };

export function isMcpTracer(value: unknown): value is McpTracer {
  return typeof value === "object" && value !== null && "startActiveSpan" in value && typeof value.startActiveSpan === "function";
}

export function mcpSpanName(summary: McpRequestSummary): string {
  return summary.target === null ? summary.method : `${summary.method} ${summary.target}`;
}

export function mcpSpanAttributes(summary: McpRequestSummary): Record<string, string | number | undefined> {
  const failed = summary.outcome !== "ok";
  const rpcCode = summary.outcome === "error" || summary.outcome === "refused" ? Number(summary.errorCode) : Number.NaN;
  return {
    "mcp.method.name": summary.method,
    "gen_ai.tool.name": summary.method === "tools/call" ? (summary.target ?? undefined) : undefined,
    "gen_ai.operation.name": summary.method === "tools/call" ? "execute_tool" : undefined,
    "gen_ai.prompt.name": summary.method === "prompts/get" ? (summary.target ?? undefined) : undefined,
    "jsonrpc.request.id": summary.requestId === null ? undefined : String(summary.requestId),
    "mcp.protocol.version": summary.protocolVersion || undefined,
    "network.transport": "tcp",
    "network.protocol.name": "http",
    "http.response.status_code": summary.httpStatus,
    // A tool's own error code (an AppError code), else the outcome (refused, timeout …).
    "error.type": failed ? summary.errorCode || summary.outcome : undefined,
    "rpc.response.status_code": Number.isInteger(rpcCode) ? String(rpcCode) : undefined,
    "mcp_edge.server": summary.server,
    "mcp_edge.caller": summary.caller,
    "mcp_edge.source": summary.source || undefined,
    "mcp_edge.outcome": summary.outcome,
  };
}

/** Names, attributes and ends the request's span (ended even when the runtime refuses an attribute). */
export function finishMcpSpan(span: McpSpan, summary: McpRequestSummary): void {
  try {
    span.updateName(mcpSpanName(summary));
    span.setAttributes(mcpSpanAttributes(summary));
    span.setStatus(summary.outcome === "ok" ? { code: "ok" } : { code: "error", message: summary.errorCode || summary.outcome });
  } finally {
    span.end();
  }
}
