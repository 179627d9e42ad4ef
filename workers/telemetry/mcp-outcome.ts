/**
 * How an MCP request ended, as telemetry counts it (decision 0064), from the HTTP status, the JSON
 * answer when it was read, and the tool calls the audit recorded:
 * - `refused`: an HTTP error (authentication, Origin, body size, scope step-up, the tool-call budget,
 *   an envelope rule); the code is the answer's `error.code` (JSON-RPC or REST shape), else `http_<status>`;
 * - `error`: a JSON-RPC error answer (invalid params, unknown method …); the code is its number;
 * - `tool_error`, or the gateway's more precise outcome of the call (`timeout`, `unavailable` …): a
 *   tool result with `isError`; the code is the tool's `_meta.error.code` (an AppError code);
 * - `ok` otherwise. A batch counts as its first failing message.
 */
import { isJsonObject } from "../lib/json";
import type { ObservedToolCall } from "./mcp-request";

export interface McpOutcome {
  outcome: string;
  /** "" when it ended well. */
  errorCode: string;
}

function codeOf(value: unknown): string | undefined {
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

function errorCodeOf(answer: unknown): string | undefined {
  const error = isJsonObject(answer) ? answer["error"] : undefined;
  return isJsonObject(error) ? (codeOf(error["code"]) ?? "unknown") : undefined;
}

function toolErrorCodeOf(answer: unknown): string | undefined {
  const result = isJsonObject(answer) ? answer["result"] : undefined;
  if (!isJsonObject(result) || result["isError"] !== true) return undefined;
  const meta = result["_meta"];
  const error = isJsonObject(meta) ? meta["error"] : undefined;
  return (isJsonObject(error) ? codeOf(error["code"]) : undefined) ?? "tool_error";
}

export function mcpOutcome(status: number, answer: unknown, toolCalls: readonly ObservedToolCall[]): McpOutcome {
  const answers = Array.isArray(answer) ? answer : [answer];
  if (status >= 400) return { outcome: "refused", errorCode: answers.map(errorCodeOf).find(Boolean) ?? `http_${status}` };
  const rpcError = answers.map(errorCodeOf).find(Boolean);
  if (rpcError) return { outcome: "error", errorCode: rpcError };
  const failedCall = toolCalls.find((call) => call.outcome !== "ok");
  const toolError = answers.map(toolErrorCodeOf).find(Boolean);
  if (toolError) return { outcome: failedCall?.outcome ?? "tool_error", errorCode: toolError };
  // The answer was not read (too large, a stream) or said nothing of it: the audit's outcome stands.
  if (failedCall) return { outcome: failedCall.outcome, errorCode: failedCall.outcome };
  return { outcome: "ok", errorCode: "" };
}
