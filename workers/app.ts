/**
 * The HTTP surface: /health, /openapi.json, OAuth (/.well-known/*, /oauth/*, /authorize), /api/*,
 * /mcp/<server> and the gateway /mcp, for the internet and for the Worker's own SELF requests; and
 * the same MCP endpoints for the chat agent's Worker. This module is on every new isolate's startup
 * path, so it holds routing only: each area is imported by the first request that needs it (http/lazy.ts) —
 * the MCP hosting layer, authentication, each server's definition, the REST API, OAuth.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "./http/context";
import { withErrorAnswers } from "./http/errors";
import { lazyApp, lazyHandler, lazyMiddleware } from "./http/lazy";
import { cors, limitBody } from "./http/middleware";
import { countedToolCall, gatewayHopRefused } from "./http/self-call";
import { onFirstUse } from "./lib/first-use";
import { MAX_MCP_BODY_BYTES } from "./mcp/limits";
import type { GatewayServer } from "./gateway/catalog/gateway.server";
import type { ToolContext } from "./mcp/tool";
import { loadMcpServers, type McpServerEntry, mcpServerEntries } from "./mcp-servers";

const authenticated = lazyMiddleware<AppEnv>(async () => (await import("./http/authenticated")).authenticated);
const originCheck = lazyMiddleware<AppEnv>(async () => (await import("./http/origin-check")).originCheck);
const handedOverPrincipal = lazyMiddleware<AppEnv>(async () => (await import("./http/principal-handover")).handedOverPrincipal);
const pipeline = onFirstUse(() => import("./mcp/pipeline"));

/** What the MCP tools of this request see: set by `authenticated`. */
function toolContext(c: Context<AppEnv>): ToolContext {
  return { user: c.var.user, services: c.var.services, access: c.var.access, toolCallCountedFor: c.var.toolCallCountedFor };
}

/** Discovery, token and registration endpoints, the /authorize pages and the upstream connect flows: one app, built on first use. */
async function createOAuthApp(): Promise<Hono<AppEnv>> {
  const [{ oauthRoutes }, { authorizeRoutes }, { oidcCallbackRoutes }, { upstreamOAuthRoutes }] = await Promise.all([
    import("./auth/oauth.routes"),
    import("./auth/authorize/authorize.routes"),
    import("./auth/authorize/oidc-callback.routes"),
    import("./upstream-oauth/upstream-oauth.routes"),
  ]);
  const app = new Hono<AppEnv>();
  app.route("/", oauthRoutes());
  app.route("/", authorizeRoutes());
  app.route("/", oidcCallbackRoutes());
  // The gateway's own client document and its connect flows to upstream authorization servers.
  app.route("/", upstreamOAuthRoutes());
  return withErrorAnswers(app);
}

/**
 * Who an app serves: `outside` — the internet, through the default export; `self` — this Worker's
 * own SELF requests (the gateway's calls of sources on its own origin), through the SelfCalls entry
 * point (workers/self-calls.ts). The two differ on /mcp* only: a SELF answer is read by the gateway,
 * never a browser, so it gets no CORS headers; the gateway's mark of a tool call it has already
 * counted is read there and nowhere else; and the gateway /mcp itself is refused there, since a
 * gateway source cannot be this gateway (http/self-call.ts).
 */
export type AppCaller = "outside" | "self";

/**
 * `servers` defaults to the real MCP servers; the conformance fixture Worker
 * (test/conformance/fixture.worker.ts) passes its own, so the suite runs through this exact app.
 */
export function createApp(servers: readonly McpServerEntry[] = mcpServerEntries, caller: AppCaller = "outside"): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/health", lazyHandler<AppEnv>(async () => (await import("./health/health.routes")).healthRoute));
  const oauth = lazyApp(createOAuthApp);
  for (const path of ["/.well-known/*", "/oauth/*", "/authorize", "/authorize/*"]) app.all(path, oauth);

  app.get(
    "/openapi.json",
    lazyHandler<AppEnv>(async () => {
      const document = (await import("./api-app")).openApiDocument(await loadMcpServers(servers));
      return (c) => c.json(document);
    }),
  );
  app.all("/api/*", lazyApp(async () => (await import("./api-app")).createApiApp(await loadMcpServers(servers))));

  // Hono's "/mcp/*" matches "/mcp" itself too: one chain serves the gateway and every server (a
  // second `app.use("/mcp", …)` ran authentication and the body limit twice on each gateway call).
  if (caller === "outside") app.use("/mcp/*", cors, originCheck, limitBody(MAX_MCP_BODY_BYTES), authenticated);
  else {
    // A gateway source cannot be this gateway: the hop is refused before the chain below runs
    // (registered first, and it never calls next), so it authenticates and spends nothing.
    app.all("/mcp", gatewayHopRefused);
    app.use("/mcp/*", originCheck, limitBody(MAX_MCP_BODY_BYTES), authenticated, countedToolCall);
  }
  mountMcpRoutes(app, servers);

  return withErrorAnswers(app);
}

/**
 * The gateway /mcp and every /mcp/<server>, behind whatever authentication the caller mounted: each
 * a server definition served by the one MCP pipeline (mcp/pipeline.ts says what runs, in order).
 */
function mountMcpRoutes(app: Hono<AppEnv>, servers: readonly McpServerEntry[]): void {
  app.all(
    "/mcp",
    lazyHandler<AppEnv>(async () => {
      const [{ serveMcp }, { createGatewayServer }, { toolsListPageSize }, builtins] = await Promise.all([
        pipeline(),
        import("./gateway/catalog/gateway.server"),
        import("./gateway/sources/gateway-limits"),
        loadMcpServers(servers),
      ]);
      // One definition per page size (GATEWAY_TOOLS_LIST_PAGE_SIZE, read per request as before): one in
      // production, where an isolate's vars do not change.
      const gateways = new Map<number, GatewayServer>();
      return (c) => {
        const listPageSize = toolsListPageSize(c.env);
        let gateway = gateways.get(listPageSize);
        if (!gateway) gateways.set(listPageSize, (gateway = createGatewayServer(builtins, { listPageSize })));
        return serveMcp(c.req.raw, gateway.definition, toolContext(c));
      };
    }),
  );
  for (const entry of servers) {
    app.all(
      `/mcp/${entry.name}`,
      lazyHandler<AppEnv>(async () => {
        const [{ serveMcp }, definition] = await Promise.all([pipeline(), entry.load()]);
        return (c) => serveMcp(c.req.raw, definition, toolContext(c));
      }),
    );
  }
}

/**
 * The same MCP endpoints for the chat agent's Worker (workers/agent-mcp.ts): the principal the
 * main Worker authenticated is handed over with each request (beside the bindings the app is called
 * with, http/principal-handover.ts) instead of a bearer token, and no browser is involved, so
 * neither CORS nor the Origin check applies. Nothing else is routed.
 */
export function createAgentMcpApp(servers: readonly McpServerEntry[] = mcpServerEntries): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Once per request: this app routes nothing but MCP.
  app.use("*", handedOverPrincipal, limitBody(MAX_MCP_BODY_BYTES));
  mountMcpRoutes(app, servers);
  return withErrorAnswers(app);
}
