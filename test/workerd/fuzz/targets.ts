/**
 * What the fuzzer aims at, read from the Worker itself so nothing is listed twice: every tool each
 * MCP endpoint lists (tools/list, as a client sees it — the gateway's admin tools included), and
 * every operation of /openapi.json. Requests go in-process through exports.default.fetch with a
 * real API token; answers are reduced to what the invariants need.
 */
import { workerFetch } from "../../helpers/mcp";
import type { TestUser } from "../../helpers/users";
import { envelope } from "../../helpers/rpc";
import type { JsonSchema } from "./json-schema";

export const MCP_ENDPOINTS = ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp"] as const;
export const ERAS = ["2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

export interface ToolTarget {
  kind: "tool";
  endpoint: string;
  name: string;
  schema: JsonSchema;
}

export interface OperationTarget {
  kind: "operation";
  method: string;
  /** OpenAPI path template: /api/tasks/{task_id} */
  path: string;
  pathParams: { name: string; schema: JsonSchema }[];
  queryParams: { name: string; required: boolean; schema: JsonSchema }[];
  body: JsonSchema | undefined;
}

/** An answer as the invariants see it: status, raw text, whether it failed and the failure's words. */
export interface Answer {
  status: number;
  text: string;
  failed: boolean;
  /** The error message (REST error.message + details.field; MCP isError text or JSON-RPC error message). */
  failure: string;
  /** The server's own failure: HTTP 5xx, an `internal` tool error (MCP answers those with HTTP 200) or JSON-RPC -32603. */
  internal: boolean;
}

function mcpHeaders(user: TestUser, era: Era, method: string, name?: string): Record<string, string> {
  return {
    authorization: `Bearer ${user.token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": era,
    ...(era === "2026-07-28" ? { "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": name }) } : {}),
  };
}

/** The JSON-RPC message of a JSON or one-event SSE body, or undefined when it is neither. */
function rpcMessage(text: string): Record<string, unknown> | undefined {
  const data =
    text.includes("\ndata: ") || text.startsWith("event:")
      ? text
          .split("\n")
          .find((line) => line.startsWith("data: "))
          ?.slice(6)
      : text;
  try {
    const parsed: unknown = data === undefined ? undefined : JSON.parse(data);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function postMcp(endpoint: string, user: TestUser, era: Era, body: string, method: string, name?: string): Promise<Answer> {
  const res = await workerFetch(`http://localhost${endpoint}`, { method: "POST", headers: mcpHeaders(user, era, method, name), body });
  const text = await res.text();
  const message = rpcMessage(text);
  const error = message?.["error"] as { code?: number; message?: string } | undefined;
  const result = message?.["result"] as
    { isError?: boolean; content?: { text?: string }[]; _meta?: { error?: { code?: string } } } | undefined;
  const internal = res.status >= 500 || error?.code === -32603 || result?._meta?.error?.code === "internal";
  if (error) return { status: res.status, text, failed: true, failure: String(error.message ?? ""), internal };
  if (result?.isError)
    return { status: res.status, text, failed: true, failure: (result.content ?? []).map((c) => c.text ?? "").join("\n"), internal };
  return { status: res.status, text, failed: res.status >= 400, failure: res.status >= 400 ? text : "", internal };
}

export function callTool(target: ToolTarget, user: TestUser, era: Era, args: unknown): Promise<Answer> {
  const params = { name: target.name, arguments: args, ...(era === "2026-07-28" ? { _meta: envelope() } : {}) };
  return postMcp(
    target.endpoint,
    user,
    era,
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    "tools/call",
    target.name,
  );
}

export async function listTools(endpoint: string, user: TestUser): Promise<ToolTarget[]> {
  const answer = await postMcp(endpoint, user, "2025-06-18", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), "tools/list");
  const message = rpcMessage(answer.text);
  const tools = (message?.["result"] as { tools: { name: string; inputSchema: JsonSchema }[] }).tools;
  return tools.map((tool) => ({ kind: "tool", endpoint, name: tool.name, schema: tool.inputSchema }));
}

interface OpenApiOperation {
  parameters: { name: string; in: "path" | "query"; required: boolean; schema: JsonSchema }[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
}

export async function listOperations(): Promise<OperationTarget[]> {
  const res = await workerFetch("http://localhost/openapi.json");
  const document = (await res.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      kind: "operation" as const,
      method: method.toUpperCase(),
      path,
      pathParams: operation.parameters.filter((p) => p.in === "path").map(({ name, schema }) => ({ name, schema })),
      queryParams: operation.parameters.filter((p) => p.in === "query").map(({ name, required, schema }) => ({ name, required, schema })),
      body: operation.requestBody?.content["application/json"].schema,
    })),
  );
}

export interface RestRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  /** undefined: no body sent. */
  body?: unknown;
}

export async function callOperation(target: OperationTarget, user: TestUser, request: RestRequest): Promise<Answer> {
  const path = target.path.replace(/\{(\w+)\}/g, (_all, name: string) => encodeURIComponent(request.path[name] ?? ""));
  const query = new URLSearchParams(request.query).toString();
  const res = await workerFetch(`http://localhost${path}${query ? `?${query}` : ""}`, {
    method: target.method,
    headers: { ...user.headers, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const text = await res.text();
  let failure = "";
  if (res.status >= 400) {
    try {
      const { error } = JSON.parse(text) as { error: { message: string; details?: { field?: string } } };
      failure = `${error.message} [field: ${error.details?.field ?? ""}]`;
    } catch {
      failure = text;
    }
  }
  return { status: res.status, text, failed: res.status >= 400, failure, internal: res.status >= 500 };
}
