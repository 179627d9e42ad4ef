/**
 * One Analytics Engine data point per MCP request (decision 0064), written to the MCP_ANALYTICS
 * dataset. The columns are positional, so their order is the contract an operator's SQL depends on:
 * docs/scale.md ("Telemetry") lists them, and a new one goes at the end, never in between.
 *
 * Writing never fails or delays the request: `writeDataPoint` returns at once (the runtime sends it
 * after the response), a missing binding writes nothing, and a refused point is logged and dropped.
 */
import { log } from "../lib/log";
import type { McpRequestSummary } from "./mcp-request-summary";

/** The positions of the blobs (blob1 … blob11 in SQL). */
export const MCP_BLOBS = [
  "server",
  "method",
  "tool",
  "source",
  "outcome",
  "error_code",
  "client_name",
  "client_version",
  "protocol_version",
  "caller",
  "oauth_client_id",
] as const;

/** The positions of the doubles (double1 … double5 in SQL). */
export const MCP_DOUBLES = ["duration_ms", "upstream_ms", "http_status", "messages", "tool_calls"] as const;

export function mcpDataPoint(summary: McpRequestSummary): AnalyticsEngineDataPoint {
  const blobs: Record<(typeof MCP_BLOBS)[number], string> = {
    server: summary.server,
    method: summary.method,
    tool: summary.target ?? "",
    source: summary.source,
    outcome: summary.outcome,
    error_code: summary.errorCode,
    client_name: summary.clientName,
    client_version: summary.clientVersion,
    protocol_version: summary.protocolVersion,
    caller: summary.caller,
    oauth_client_id: summary.oauthClientId,
  };
  const doubles: Record<(typeof MCP_DOUBLES)[number], number> = {
    duration_ms: summary.durationMs,
    upstream_ms: summary.upstreamMs,
    http_status: summary.httpStatus,
    messages: summary.messages,
    tool_calls: summary.toolCalls,
  };
  return {
    // The sampling key: Analytics Engine samples within each index value, so each server keeps its share.
    indexes: [summary.server],
    blobs: MCP_BLOBS.map((name) => blobs[name]),
    doubles: MCP_DOUBLES.map((name) => doubles[name]),
  };
}

export function writeMcpDataPoint(dataset: AnalyticsEngineDataset | undefined, summary: McpRequestSummary): void {
  if (!dataset) return;
  try {
    dataset.writeDataPoint(mcpDataPoint(summary));
  } catch (error) {
    log.warn("MCP telemetry data point not written", { server: summary.server, method: summary.method, error: String(error) });
  }
}
