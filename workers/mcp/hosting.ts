/**
 * The hosting layer every MCP server here stands on: a fresh McpServer per request (never shared,
 * so no state can leak between clients), served statelessly by the Agents SDK's createMcpHandler
 * to 2026-07-28 clients and, through its stateless legacy lane, to 2025-06-18 / 2025-11-25 ones.
 * Origin checks and authentication run before this, in the /mcp/* middleware.
 *
 * The handler itself holds no per-request state, so it is built once per server per isolate; the
 * request's user and services reach the factory through the `authInfo` the SDK passes through.
 */
import { type AuthInfo, McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { AppError } from "../lib/errors";
import { answerFast, fastPathVersion } from "./fast-path";
import { scopeRefusal } from "./scope-gate";
import type { McpServerDefinition } from "./server-definition";
import { registerTools, type ToolContext } from "./tool";

/** Bodies over this are answered 413 before anything is parsed. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;


export function buildServer(definition: McpServerDefinition, ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: `mcp-edge-${definition.name}`, version: definition.version },
    {
      instructions: definition.instructions,
      capabilities: { logging: {} },
      ...(definition.cacheHints ? { cacheHints: definition.cacheHints } : {}),
    },
  );
  registerTools(server, definition.tools, ctx);
  definition.extend?.(server, ctx);
  return server;
}

type Handler = ReturnType<typeof createMcpHandler>;

/** Each request's context, keyed by the AuthInfo object made for that request alone. */
const requestContexts = new WeakMap<AuthInfo, ToolContext>();
const handlers = new WeakMap<McpServerDefinition, Handler>();

function handlerFor(definition: McpServerDefinition): Handler {
  let handler = handlers.get(definition);
  if (!handler) {
    handler = createMcpHandler(
      ({ authInfo }) => {
        const ctx = authInfo && requestContexts.get(authInfo);
        if (!ctx) throw new AppError("internal", "MCP request reached the server without an authenticated context");
        return buildServer(definition, ctx);
      },
      {
        route: definition.route ?? `/mcp/${definition.name}`,
        // Origin validation already ran in our middleware, with our allow-list.
        allowedOriginHostnames: "*",
        corsOptions: false,
        maxRequestBodySize: MAX_MCP_BODY_BYTES,
      },
    );
    handlers.set(definition, handler);
  }
  return handler;
}

/** Serves one request with the SDK alone (no fast path): the protocol authority, also used by tests. */
export function serveWithSdk(request: Request, definition: McpServerDefinition, ctx: ToolContext, parsedBody?: unknown): Promise<Response> {
  const authInfo: AuthInfo = { token: "", clientId: `user:${ctx.user.id}`, scopes: [] };
  requestContexts.set(authInfo, ctx);
  return handlerFor(definition).fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
}

/** A POST body as text and, when it is JSON, parsed; undefined for other methods. */
export async function readMcpBody(request: Request): Promise<{ text: string; body: unknown } | undefined> {
  if (request.method !== "POST") return undefined;
  const text = await request.text();
  try {
    return { text, body: JSON.parse(text) };
  } catch {
    return { text, body: undefined }; // the SDK answers malformed JSON in its own words, from the bytes
  }
}

export async function serveMcp(request: Request, definition: McpServerDefinition, ctx: ToolContext): Promise<Response> {
  const read = await readMcpBody(request);
  if (!read) return serveWithSdk(request, definition, ctx);
  const refused = scopeRefusal(read.body, definition, ctx);
  if (refused) return refused;
  const forward = new Request(request, { body: read.text });
  if (read.body === undefined) return serveWithSdk(forward, definition, ctx);
  const version = fastPathVersion(request);
  const sdk = (probe: Request) => serveWithSdk(probe, definition, ctx);
  return (version ? await answerFast(read.body, version, request, definition, ctx, sdk) : undefined) ?? serveWithSdk(forward, definition, ctx, read.body);
}
