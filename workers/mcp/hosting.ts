/**
 * The hosting layer every MCP server here stands on: a fresh McpServer per request (never shared,
 * so no state can leak between clients), served statelessly by the Agents SDK's createMcpHandler
 * to 2026-07-28 clients and, through its stateless legacy lane, to 2025-06-18 / 2025-11-25 ones.
 * Origin checks and authentication run before this, in the /mcp/* middleware.
 *
 * The handler itself holds no per-request state, so it is built once per server per isolate; the
 * request's server (built from its definition and tool context) reaches the handler's factory
 * through the `authInfo` the SDK passes through — the one way createMcpHandler offers.
 */
import { type AuthInfo, McpServer, type ServerCapabilities } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { AppError } from "../lib/errors";
import { mcpClientFacts } from "./client-facts";
import { refuseEnvelope } from "./envelope";
import { answerFast, fastPathVersion } from "./fast-path";
import { scopeRefusal } from "./scope-gate";
import type { McpServerDefinition } from "./server-definition";
import { refuseInvalidParams } from "./spec-params";
import { MAX_MCP_BODY_BYTES } from "./limits";
import { refuseOverLimit } from "./tool-call-limit";
import { registerTools, type ToolContext } from "./tool";

export function buildServer<C extends ToolContext>(definition: McpServerDefinition<C>, ctx: C): McpServer {
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

/** Each request's server, keyed by the AuthInfo object made for that request alone. */
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

/** Serves one request with the SDK alone (no fast path): the protocol authority, also used by tests. */
export function serveWithSdk<C extends ToolContext>(request: Request, definition: McpServerDefinition<C>, ctx: C, parsedBody?: unknown): Promise<Response> {
  const authInfo: AuthInfo = { token: "", clientId: `user:${ctx.user.id}`, scopes: [] };
  requestServers.set(authInfo, () => buildServer(definition, ctx));
  return handlerFor(definition).fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
}

/** What each server advertises, from one server built per definition per isolate (it depends on the definition only). */
const advertised = new WeakMap<McpServerDefinition, ServerCapabilities>();

function capabilitiesOf<C extends ToolContext>(definition: McpServerDefinition<C>, ctx: C): ServerCapabilities {
  let capabilities = advertised.get(definition);
  if (!capabilities) advertised.set(definition, (capabilities = buildServer(definition, ctx).server.getCapabilities()));
  return capabilities;
}

/**
 * A POST's body, parsed once for the envelope, params and scope checks, the tool-call rate limit,
 * the fast path and the SDK:
 * `forward` makes the request to hand the SDK (the body re-attached), `body` undefined when the bytes are
 * not JSON (the SDK then answers the parse error in its own words), or a check's refusal.
 */
export async function readMcpPost<C extends ToolContext>(
  request: Request,
  definition: McpServerDefinition<C>,
  ctx: C,
): Promise<{ forward: () => Request; body: unknown } | { refusal: Response }> {
  const text = await request.text();
  // The body re-attached, for the SDK: built only when the SDK serves (the fast path answers from
  // the parsed body, and copying a Request is not free on the hot path).
  const forward = () => new Request(request, { body: text });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { forward, body: undefined };
  }
  const client = mcpClientFacts(body, request, ctx.access.principal);
  ctx.services.toolCallAudit.identify(client);
  ctx.services.mcpRequest.learn(body, client);
  const refusal =
    refuseEnvelope(body, request) ??
    refuseInvalidParams(body, request, capabilitiesOf(definition, ctx)) ??
    scopeRefusal(body, definition, ctx) ??
    (await refuseOverLimit(body, forward, definition, ctx, serveWithSdk));
  return refusal ? { refusal } : { forward, body };
}

export async function serveMcp(request: Request, definition: McpServerDefinition, ctx: ToolContext): Promise<Response> {
  if (request.method !== "POST") return serveWithSdk(request, definition, ctx);
  const post = await readMcpPost(request, definition, ctx);
  if ("refusal" in post) return post.refusal;
  if (post.body === undefined) return serveWithSdk(post.forward(), definition, ctx);
  const version = fastPathVersion(request);
  const sdk = (probe: Request) => serveWithSdk(probe, definition, ctx);
  const fast = version ? await answerFast(post.body, version, request, definition, ctx, sdk) : undefined;
  return fast ?? serveWithSdk(post.forward(), definition, ctx, post.body);
}
