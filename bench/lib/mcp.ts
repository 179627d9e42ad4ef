/**
 * The three benchmarked MCP requests and how a response is judged. Every target gets byte-identical
 * requests: a stateless 2025-06-18 JSON-RPC POST, no initialize, no session. Each tool has a fixed
 * JSON-RPC id so a fixed-body server (the ceiling) can answer it correctly.
 */

export const TOOLS = ["tools/list", "list_tasks", "add_task"] as const;
export type Tool = (typeof TOOLS)[number];

export const MCP_PATH = "/mcp/tasks";
export const PROTOCOL_VERSION = "2025-06-18";

/**
 * Where a target receives the benchmarked requests. The direct targets use /mcp/tasks with the
 * tools' own names; the gateway row sends the same call to /mcp as `<slug>__list_tasks`.
 * `sdkOnly` leaves out the MCP-Protocol-Version header, which keeps mcp-edge off its fast path
 * (decision 0006): the same call, answered by the SDK, for the latency breakdown.
 */
export interface Route {
  path: string;
  toolPrefix: string;
  sdkOnly: boolean;
}

export const DIRECT: Route = { path: MCP_PATH, toolPrefix: "", sdkOnly: false };

const MESSAGES: Record<Tool, object> = {
  "tools/list": { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  list_tasks: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_tasks", arguments: { limit: 20 } } },
  add_task: {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "add_task", arguments: { title: "Benchmark task", priority: "medium", tags: ["bench"] } },
  },
};

export function requestBody(tool: Tool, route: Route = DIRECT): string {
  const message = MESSAGES[tool] as { params: { name?: string } };
  if (route.toolPrefix === "" || message.params.name === undefined) return JSON.stringify(message);
  return JSON.stringify({ ...message, params: { ...message.params, name: `${route.toolPrefix}${message.params.name}` } });
}

export function requestHeaders(token: string, route: Route = DIRECT): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(route.sdkOnly ? {} : { "mcp-protocol-version": PROTOCOL_VERSION }),
    authorization: `Bearer ${token}`,
  };
}

const IS_ERROR = /"isError"\s*:\s*true/;

/**
 * The check run on every response under load, so it must be cheap: a JSON-RPC error has no
 * `result` member, and a failed tool call carries `isError: true`. Bodies are either JSON or one
 * SSE `data:` line holding the same JSON; the substring checks work for both.
 */
export function isSuccessBody(body: string): boolean {
  return body.includes('"result":') && !IS_ERROR.test(body);
}

/** The JSON-RPC message in a response body, whether sent as JSON or as SSE `event: message` frames. */
export function parseRpcMessage(body: string, contentType: string): unknown {
  if (!contentType.includes("text/event-stream")) return JSON.parse(body) as unknown;
  const data = body
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trimStart());
  const last = data.at(-1);
  if (last === undefined) throw new Error("SSE response without a data line");
  return JSON.parse(last) as unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The thorough check made once per (target, tool) before any load: status, framing and the
 * result's shape. Returns a problem description, or undefined when the response is a real result.
 */
export function sampleProblem(tool: Tool, status: number, contentType: string, body: string): string | undefined {
  if (status < 200 || status > 299) return `HTTP ${status}: ${body.slice(0, 300)}`;
  let message: unknown;
  try {
    message = parseRpcMessage(body, contentType);
  } catch (error) {
    return `unparseable body (${String(error)}): ${body.slice(0, 300)}`;
  }
  if (!isRecord(message) || !isRecord(message["result"])) return `not a JSON-RPC result: ${body.slice(0, 300)}`;
  const result = message["result"];
  if (!isSuccessBody(body)) return `the fast check rejects this body: ${body.slice(0, 300)}`;
  if (tool === "tools/list") {
    const tools = result["tools"];
    return Array.isArray(tools) && tools.length > 0 ? undefined : "tools/list returned no tools";
  }
  const structured = result["structuredContent"];
  if (!isRecord(structured)) return `${tool} returned no structuredContent: ${body.slice(0, 300)}`;
  if (tool === "list_tasks") {
    const tasks = structured["tasks"];
    return Array.isArray(tasks) && tasks.length === 20 ? undefined : "list_tasks did not return 20 tasks";
  }
  const task = structured["task"];
  return isRecord(task) && typeof task["id"] === "number" ? undefined : "add_task returned no task id";
}
