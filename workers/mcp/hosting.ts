/**
 * The SDK side of every MCP server here: a fresh McpServer per request (never shared, so no state
 * can leak between clients), served statelessly by the Agents SDK's createMcpHandler to 2026-07-28
 * clients and, through its stateless legacy lane, to 2025-06-18 / 2025-11-25 ones. What runs before
 * it — the checks and the fast paths — is mcp/pipeline.ts.
 *
 * The handler holds no per-request state, so it is built once per server per isolate. The
 * request's server (built from its definition, tool context and request state) reaches the
 * handler's factory through the `authInfo` the SDK passes through: the one way createMcpHandler
 * offers, and the one per-request side channel of the MCP layer (`requestServers`).
 */
import { type AuthInfo, McpServer, type ServerCapabilities } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { AppError } from "../lib/errors";
import { isJsonObject } from "../lib/json";
import { MAX_MCP_BODY_BYTES } from "./limits";
import type { McpServerDefinition, SdkRequestFacts } from "./server-definition";
import { registerTools, type ToolContext } from "./tool";

export function buildServer<S>(definition: McpServerDefinition<S>, ctx: ToolContext, state?: S, request?: SdkRequestFacts): McpServer {
  const server = new McpServer(
    { name: `mcp-edge-${definition.name}`, version: definition.version },
    {
      instructions: definition.instructions,
      capabilities: { logging: {} },
      ...(definition.cacheHints ? { cacheHints: definition.cacheHints } : {}),
    },
  );
  registerTools(server, definition.tools, ctx);
  definition.extend?.(server, ctx, state, request);
  // Skills serve nothing a tools/list or tools/call reads (decision 0072).
  if (definition.skills && !request?.toolsOnly) definition.skills.extension.attach(server);
  advertiseNoListChanges(server);
  return server;
}

const LISTS = ["tools", "resources", "prompts"] as const;

/**
 * The SDK advertises `listChanged: true` for every list it serves. Served statelessly, no stream
 * outlives a request here, so no list_changed notification is ever sent: advertise none, and let
 * clients rely on the list results' cache hints (`cacheHints`) instead.
 */
function advertiseNoListChanges(server: McpServer): void {
  const advertised = server.server.getCapabilities();
  for (const list of LISTS) {
    if (advertised[list]) server.server.registerCapabilities({ [list]: { listChanged: false } });
  }
}

type Handler = ReturnType<typeof createMcpHandler>;

/** The AuthInfo bridge: each request's server, keyed by the AuthInfo object made for that request alone. */
const requestServers = new WeakMap<AuthInfo, () => McpServer>();
const handlers = new WeakMap<McpServerDefinition, Handler>();

function handlerFor(definition: McpServerDefinition): Handler {
  let handler = handlers.get(definition);
  if (!handler) {
    handler = createMcpHandler(
      ({ authInfo }) => {
        const build = authInfo && requestServers.get(authInfo);
        if (!build) throw new AppError("internal", "MCP request reached the server without an authenticated context");
        return build();
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

export interface SdkServing<S> {
  /** The body already parsed (the SDK reads the request's own otherwise). */
  parsedBody?: unknown;
  /** What `prepare` found for this request, for `extend`. */
  state?: S;
}

const TOOL_METHODS: ReadonlySet<unknown> = new Set(["tools/list", "tools/call"]);

/** Whether every message of a parsed body is a tools/list or tools/call (false when the body is not known). */
function toolsOnly(parsedBody: unknown): boolean {
  if (parsedBody === undefined) return false;
  const messages: unknown[] = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
  return messages.length > 0 && messages.every((message) => isJsonObject(message) && TOOL_METHODS.has(message["method"]));
}

/** Serves one request with the SDK alone: the protocol authority, also what the fast-path tests compare with. */
export function serveWithSdk<S>(
  request: Request,
  definition: McpServerDefinition<S>,
  ctx: ToolContext,
  serving: SdkServing<S> = {},
): Promise<Response> {
  const authInfo: AuthInfo = { token: "", clientId: `user:${ctx.user.id}`, scopes: [] };
  const { parsedBody } = serving;
  requestServers.set(authInfo, () => buildServer(definition, ctx, serving.state, { toolsOnly: toolsOnly(parsedBody) }));
  return handlerFor(definition).fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
}

/** What each server advertises, from one server built per definition per isolate (it depends on the definition only). */
const advertised = new WeakMap<McpServerDefinition, ServerCapabilities>();

export function capabilitiesOf(definition: McpServerDefinition, ctx: ToolContext): ServerCapabilities {
  let capabilities = advertised.get(definition);
  if (!capabilities) advertised.set(definition, (capabilities = buildServer(definition, ctx).server.getCapabilities()));
  return capabilities;
}
