/**
 * Serving an MCP server (the SDK's `Server`) over the SDK's Node streamable HTTP transport, as the
 * tests' upstreams do: a stateless request gets a fresh server and transport of its own (nothing
 * is shared between requests, as mcp-edge's own servers do it), a session keeps its transport
 * from `initialize` until it closes.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** Answers one request with `server` on a transport of its own (JSON answers, no session); both close with the response. */
export async function serveStatelessRequest(server: Server, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * Opens a session for an `initialize` request: `server` on a new transport, kept in `sessions`
 * under the id it answers with (as `entry(transport)` makes it) and removed when it closes.
 * Later requests of the session go to `sessions.get(id).transport.handleRequest`.
 */
export async function openSession<T>(
  server: Server,
  sessions: Map<string, T>,
  entry: (transport: StreamableHTTPServerTransport) => T,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, entry(transport)),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
