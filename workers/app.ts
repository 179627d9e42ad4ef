/**
 * The HTTP surface: /health, /openapi.json, the sign-in wing (/.well-known/oauth-*, /oauth/*,
 * /authorize), /api/*, /mcp/<server> and the gateway /mcp; and the same MCP endpoints for the chat agent's Worker. This module is on every new
 * isolate's startup path, so it holds routing only: each area is imported by the first request that
 * needs it (http/lazy.ts) — the MCP hosting layer, authentication, each server's definition, the
 * REST API, each sign-in route's handler.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { SignInEnv } from "./auth/authorize/authorize.routes";
import type { AppEnv } from "./http/context";
import { withErrorAnswers } from "./http/errors";
import { lazyApp, lazyHandler, lazyMiddleware } from "./http/lazy";
import { cors, limitBody } from "./http/middleware";
import { onFirstUse } from "./lib/first-use";
import { MAX_MCP_BODY_BYTES } from "./mcp/limits";
import type { GatewayServer } from "./gateway/catalog/gateway.server";
import type { ToolContext } from "./mcp/tool";
import { loadMcpServers, type McpServerEntry, mcpServerEntries } from "./mcp-servers";
import { signInRoutes } from "./sign-in-routes";

const authenticated = lazyMiddleware<AppEnv>(async () => (await import("./http/authenticated")).authenticated);
const originCheck = lazyMiddleware<AppEnv>(async () => (await import("./http/origin-check")).originCheck);
const handedOverPrincipal = lazyMiddleware<AppEnv>(async () => (await import("./http/principal-handover")).handedOverPrincipal);
const withRequestServices = lazyMiddleware<SignInEnv>(async () => (await import("./http/request-services")).withRequestServices);
const pipeline = onFirstUse(() => import("./mcp/pipeline"));
/** The data point and span of every MCP POST (decision 0064): first in each MCP chain, so it sees refusals too. */
const mcpTelemetry = (caller: "outside" | "agent") =>
  lazyMiddleware<AppEnv>(async () => (await import("./http/mcp-telemetry")).mcpTelemetry(caller));

/** What the MCP tools of this request see: set by `authenticated`. */
function toolContext(c: Context<AppEnv>): ToolContext {
  return { user: c.var.user, services: c.var.services, access: c.var.access };
}

/**
 * Sign-in and upstream connections (workers/sign-in-routes.ts), each route with the request's
 * services (no bearer token is authenticated there); a handler's module is imported by its first
 * request. Mounted with `app.route`, which adds each route to the app's own router: one routing.
 */
function signInApp(): Hono<SignInEnv> {
  const app = new Hono<SignInEnv>();
  for (const route of signInRoutes) {
    const handler = lazyHandler<SignInEnv>(route.load);
    if (route.methods) app.on([...route.methods], route.path, withRequestServices, handler);
    else app.all(route.path, withRequestServices, handler);
  }
  return app;
}

/**
 * `servers` defaults to the real MCP servers; the conformance fixture Worker
 * (test/conformance/fixture.worker.ts) passes its own, so the suite runs through this exact app.
 */
export function createApp(servers: readonly McpServerEntry[] = mcpServerEntries): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    "/health",
    lazyHandler<AppEnv>(async () => (await import("./health/health.routes")).healthRoute),
  );
  app.route("/", signInApp());

  app.get(
    "/openapi.json",
    lazyHandler<AppEnv>(async () => {
      const document = (await import("./api-app")).openApiDocument(await loadMcpServers(servers));
      return (c) => c.json(document);
    }),
  );
  app.all(
    "/api/*",
    lazyApp(async () => (await import("./api-app")).createApiApp(await loadMcpServers(servers))),
  );

  // Hono's "/mcp/*" matches "/mcp" itself too: one chain serves the gateway and every server (a
  // second `app.use("/mcp", …)` ran authentication and the body limit twice on each gateway call).
  app.use("/mcp/*", mcpTelemetry("outside"), cors, originCheck, limitBody(MAX_MCP_BODY_BYTES), authenticated);
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
  app.use("*", mcpTelemetry("agent"), handedOverPrincipal, limitBody(MAX_MCP_BODY_BYTES));
  mountMcpRoutes(app, servers);
  return withErrorAnswers(app);
}
