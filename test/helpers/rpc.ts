/**
 * Raw MCP requests: exactly what a client of each revision puts on the wire, so the tests pin the
 * HTTP contract itself rather than what one SDK client happens to send (protocol, fast-path, limits
 * and auth tests); and the JSON-RPC message read back from a JSON or SSE reply.
 */
import { env } from "cloudflare:test";
import { createApp } from "../../workers/app";
import { builtEntry } from "../../workers/mcp-servers";
import type { McpServerDefinition } from "../../workers/mcp/server-definition";
import { workerFetch } from "./mcp";

export const MODERN = "2026-07-28";
export const LEGACY_REVISIONS = ["2025-06-18", "2025-11-25"] as const;

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The per-request `_meta` envelope every 2026-07-28 request carries instead of an initialize handshake. */
export function envelope(): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
}

/** Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri (resources/read). */
function nameOf(params: Record<string, unknown>): string | undefined {
  const value = params["name"] ?? params["uri"];
  return typeof value === "string" ? value : undefined;
}

/** A 2026-07-28 POST; `headers` override (or, set to "", drop) the standard ones. */
export function modernPost(
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): RequestInit {
  const name = nameOf(params);
  const merged: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
    ...headers,
  };
  for (const [key, value] of Object.entries(merged)) if (value === "") delete merged[key];
  return {
    method: "POST",
    headers: merged,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: envelope() } }),
  };
}

/** A 2025-era POST: no envelope; MCP-Protocol-Version only after initialize, as the 2025 spec says. */
export function legacyPost(token: string, version: string | undefined, message: Record<string, unknown>): RequestInit {
  return {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(version ? { "mcp-protocol-version": version } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  };
}

/** What a client that takes both answers sends as Accept. */
export const ACCEPT_JSON_AND_SSE = "application/json, text/event-stream";

/**
 * A raw 2025-era JSON-RPC POST to `path` ("/mcp/tasks", "/mcp") as a Request: `version` undefined
 * sends no MCP-Protocol-Version header at all; `message` may set its own id (default 7).
 */
export function rpcRequest(
  path: string,
  token: string,
  version: string | undefined,
  message: Record<string, unknown>,
  accept = ACCEPT_JSON_AND_SSE,
): Request {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: {
      host: "localhost",
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept,
      ...(version === undefined ? {} : { "mcp-protocol-version": version }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, ...message }),
  });
}

/** The JSON-RPC response in a reply, whether sent as plain JSON or as the response event of an SSE stream. */
export async function rpcResponse(res: Response): Promise<JsonRpcResponse> {
  const body = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(body) as JsonRpcResponse;
  const messages = body
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)) as JsonRpcResponse);
  const response = messages.find((message) => "result" in message || "error" in message);
  if (!response) throw new Error(`no JSON-RPC response in SSE body: ${body}`);
  return response;
}

export const mcp = (server: string, init: RequestInit) => workerFetch(`http://localhost/mcp/${server}`, init);

/**
 * The production app with a modified env (e.g. ALLOWED_ORIGINS) and/or other MCP servers, called
 * in-process like exports.default, with the Host header a real HTTP client would send.
 */
export function appWith(overrides: Partial<Env>, servers?: readonly McpServerDefinition[]) {
  const app = createApp(servers?.map(builtEntry));
  return async (request: Request, ctx: ExecutionContext): Promise<Response> => {
    if (!request.headers.has("host")) request.headers.set("host", new URL(request.url).host);
    return app.fetch(request, { ...env, ...overrides }, ctx);
  };
}
