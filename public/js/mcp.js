// @ts-check
// A tiny MCP client: stateless 2026-07-28 JSON-RPC requests (the per-request `_meta` envelope, no
// initialize, no session), which every endpoint of this Worker accepts. Same origin, so the
// Worker's Origin check (DNS-rebinding protection) lets the console through on localhost and on
// its own *.workers.dev hostname.
import { ApiError, authorizedFetch, errorFrom, notifyUnauthorized } from "./api.js";
import { readSse } from "./sse.js";

export const PROTOCOL_VERSION = "2026-07-28";
const CLIENT_INFO = { name: "mcp-edge-console", version: "1.0.0" };

/** A JSON-RPC error answer (e.g. unknown tool, invalid params). */
export class McpError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }

  describe() {
    return `${this.message} (JSON-RPC error ${this.code})`;
  }
}

let nextId = 1;

export class McpClient {
  /** `route` is the endpoint path, e.g. "/mcp/tasks" or "/mcp". @param {string} route */
  constructor(route) {
    this.route = route;
  }

  /**
   * @param {string} method
   * @param {Record<string, unknown>} [params]
   * @returns {Promise<any>} the JSON-RPC result as the server sent it (its shape is the method's)
   */
  async request(method, params = {}) {
    const id = nextId++;
    const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL_VERSION,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
    };
    const body = {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
          "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    let response;
    try {
      response = await authorizedFetch(this.route, { method: "POST", headers, body: JSON.stringify(body) });
    } catch (error) {
      throw new ApiError(0, "network", `Could not reach ${this.route} (${/** @type {Error} */ (error).message})`);
    }
    const type = response.headers.get("content-type") ?? "";
    // Errors before MCP (401, 403 Origin or scope, 413) come in the REST shape; JSON-RPC errors may use 4xx too.
    if (!response.ok && !type.includes("text/event-stream")) {
      const error = await errorFrom(response.clone());
      const rpc = await response.json().catch(() => undefined);
      if (rpc && rpc.error && typeof rpc.error.code === "number") throw new McpError(rpc.error.code, rpc.error.message, rpc.error.data);
      if (response.status === 401) notifyUnauthorized(error);
      throw error;
    }
    const message = type.includes("text/event-stream") ? await responseFromSse(response, id) : await response.json();
    if (message.error) throw new McpError(message.error.code, message.error.message, message.error.data);
    return message.result;
  }

  /**
   * Every tool, following nextCursor pages.
   * @returns {Promise<any[]>} tools/list's tool objects
   */
  async listTools() {
    /** @type {any[]} */
    const tools = [];
    let cursor;
    do {
      const result = await this.request("tools/list", cursor ? { cursor } : {});
      tools.push(...(result.tools ?? []));
      cursor = result.nextCursor;
    } while (cursor);
    return tools;
  }

  /**
   * @param {string} name
   * @param {Record<string, unknown>} args
   */
  callTool(name, args) {
    return this.request("tools/call", { name, arguments: args });
  }
}

/**
 * @param {Response} response
 * @param {number} id
 * @returns {Promise<any>} the JSON-RPC response message
 */
async function responseFromSse(response, id) {
  for await (const { data } of readSse(response)) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      continue;
    }
    if (message.id === id && ("result" in message || "error" in message)) return message;
  }
  throw new McpError(-32603, "The server closed the stream without answering");
}
