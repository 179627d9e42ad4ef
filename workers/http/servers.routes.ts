/**
 * GET /api/servers: which MCP servers this Worker hosts and where, for the web console (public/).
 * Only names, routes and prose: each server's tools are listed by the client over MCP itself
 * (tools/list), so the console sees exactly what any MCP client sees, per user.
 */
import * as z from "zod";
import type { McpServerDefinition } from "../mcp/server-definition";
import { defineRoute } from "./api-route";

/** Display titles; a server not named here is shown by its name. */
const TITLES: Readonly<Record<string, string>> = {
  gateway: "Gateway (every tool)",
  tasks: "Tasks",
  rag: "RAG",
  thinking: "Sequential thinking",
};

const serverInfo = z.object({
  name: z.string(),
  route: z.string().describe("Path of the streamable-HTTP MCP endpoint"),
  title: z.string(),
  description: z.string().describe("The server's MCP instructions"),
  version: z.string(),
});
const serverList = z.object({ servers: z.array(serverInfo) });

export function serverRoutes(servers: readonly McpServerDefinition[]) {
  const listing = servers.map((server) => ({
    name: server.name,
    route: server.route ?? `/mcp/${server.name}`,
    title: TITLES[server.name] ?? server.name,
    description: server.instructions,
    version: server.version,
  }));
  return [
    defineRoute({
      method: "get",
      path: "/api/servers",
      scopes: [],
      summary: "The MCP servers on this Worker (name, endpoint, description); list their tools over MCP",
      tag: "servers",
      response: serverList,
      handle: async () => ({ servers: listing }),
    }),
  ];
}
