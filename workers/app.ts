/** The HTTP surface: /health, /openapi.json, OAuth (/.well-known/*, /oauth/*, /authorize), /api/*, /mcp/<server>. */
import { Hono } from "hono";
import { mountChatRoutes } from "./agent/chat.routes";
import { authorizeRoutes } from "./auth/authorize/authorize.routes";
import { oidcCallbackRoutes } from "./auth/authorize/oidc-callback.routes";
import { oauthRoutes } from "./auth/oauth.routes";
import { buildOpenApi, mountRoutes } from "./http/api-route";
import type { AppEnv } from "./http/context";
import { errorResponse } from "./http/errors";
import { createGatewayServer, gatewayBuiltinNames, serveGateway } from "./gateway/gateway.server";
import { sourceAuthorizationRoutes } from "./gateway/source-authorization.routes";
import { hiddenToolRoutes, sourceRoutes } from "./gateway/sources.routes";
import { MAX_JSON_BODY_BYTES } from "./http/json-body";
import { apiRateLimited, authenticated, cors, limitBody, originCheck } from "./http/middleware";
import { serverRoutes } from "./http/servers.routes";
import { healthRoute } from "./health/health.routes";
import { VERSION } from "./health/health.service";
import { AppError } from "./lib/errors";
import { MAX_MCP_BODY_BYTES, serveMcp } from "./mcp/hosting";
import type { McpServerDefinition } from "./mcp/server-definition";
import { mcpServers } from "./mcp-servers";
import { ragRoutes } from "./rag/rag.routes";
import { taskRoutes } from "./tasks/tasks.routes";
import { upstreamOAuthRoutes } from "./upstream-oauth/upstream-oauth.routes";

const apiRoutes = [...taskRoutes, ...ragRoutes, ...sourceRoutes, ...sourceAuthorizationRoutes, ...hiddenToolRoutes(gatewayBuiltinNames(mcpServers)), ...serverRoutes([...mcpServers, createGatewayServer(mcpServers).definition])];

/**
 * `servers` defaults to the real MCP servers; the conformance fixture Worker
 * (test/conformance/fixture.worker.ts) passes its own, so the suite runs through this exact app.
 */
export function createApp(servers: readonly McpServerDefinition[] = mcpServers): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/health", healthRoute);
  app.route("/", oauthRoutes());
  app.route("/", authorizeRoutes());
  app.route("/", oidcCallbackRoutes());
  app.route("/", upstreamOAuthRoutes());
  app.get("/openapi.json", (c) => c.json(buildOpenApi(apiRoutes, { title: "mcp-edge REST API", version: VERSION })));

  app.use("/api/*", cors, limitBody(MAX_JSON_BODY_BYTES), authenticated, apiRateLimited);
  mountRoutes(app, apiRoutes);
  mountChatRoutes(app);

  // "/mcp/*" does not match "/mcp" itself: the gateway endpoint needs the same chain, named.
  app.use("/mcp", cors, originCheck, limitBody(MAX_MCP_BODY_BYTES), authenticated);
  app.use("/mcp/*", cors, originCheck, limitBody(MAX_MCP_BODY_BYTES), authenticated);
  // Tools vary per user, so the gateway's tools/list is built per request by the SDK, never served
  // from the built-in servers' per-isolate cache; a plain tools/call of a source tool is answered
  // straight from the gateway's call path (serveGateway, decisions 0013 and 0029).
  const gateway = createGatewayServer(servers);
  app.all("/mcp", (c) => serveGateway(c.req.raw, gateway, { user: c.var.user, services: c.var.services, access: c.var.access }));
  for (const definition of servers) {
    app.all(`/mcp/${definition.name}`, (c) =>
      serveMcp(c.req.raw, definition, { user: c.var.user, services: c.var.services, access: c.var.access }),
    );
  }

  app.notFound((c) => errorResponse(c, new AppError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`)));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}
