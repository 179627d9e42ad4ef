/**
 * The REST API (/api/*) as its own app, built by the first /api request (workers/app.ts hands
 * every /api request over to it): CORS, the body limit, authentication, the per-user REST budget,
 * the declared routes and the chat routes. Also the routes' OpenAPI document. Both need every MCP server's definition
 * (the server list, the names of the tools that can be hidden), so building them loads the servers.
 */
import { Hono } from "hono";
import { activityRoutes } from "./activity/activity.routes";
import { mountChatRoutes } from "./chat/chat.routes";
import { createGatewayServer, gatewayBuiltinNames } from "./gateway/catalog/gateway.server";
import { sourceAuthorizationRoutes } from "./gateway/authorization/source-authorization.routes";
import { hiddenToolRoutes, sourceRoutes } from "./gateway/registry/sources.routes";
import { VERSION } from "./health/health.service";
import type { McpServerDefinition } from "./mcp/server-definition";
import { ragRoutes } from "./rag/rag.routes";
import { taskRoutes } from "./tasks/tasks.routes";
import { type ApiRoute, buildOpenApi, mountRoutes } from "./http/api-route";
import { apiRateLimited, authenticated } from "./http/authenticated";
import type { AppEnv } from "./http/context";
import { withErrorAnswers } from "./http/errors";
import { MAX_JSON_BODY_BYTES } from "./http/json-body";
import { cors, limitBody } from "./http/middleware";
import { serverRoutes } from "./http/servers.routes";

function apiRoutes(servers: readonly McpServerDefinition[]): ApiRoute[] {
  return [
    ...taskRoutes,
    ...ragRoutes,
    ...sourceRoutes,
    ...sourceAuthorizationRoutes,
    ...hiddenToolRoutes(gatewayBuiltinNames(servers)),
    ...serverRoutes([...servers, createGatewayServer(servers).definition]),
    ...activityRoutes,
  ];
}

export function createApiApp(servers: readonly McpServerDefinition[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/api/*", cors, limitBody(MAX_JSON_BODY_BYTES), authenticated, apiRateLimited);
  mountRoutes(app, apiRoutes(servers));
  mountChatRoutes(app);
  return withErrorAnswers(app);
}

export function openApiDocument(servers: readonly McpServerDefinition[]) {
  return buildOpenApi(apiRoutes(servers), { title: "mcp-edge REST API", version: VERSION });
}
