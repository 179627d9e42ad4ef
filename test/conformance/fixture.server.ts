/**
 * The conformance fixture: an MCP server definition carrying every tool, resource and prompt the
 * suite's server scenarios expect. It is served by the same `createApp` (middleware, Origin checks,
 * auth, `serveMcp`) as the real servers, only mounted on its own Worker (fixture.worker.ts).
 */
import type { McpServerDefinition } from "../../workers/mcp/server-definition";
import { registerScenarioPrompts, registerScenarioResources } from "./fixture.content";
import { registerScenarioTools, wrappedScenarioTools } from "./fixture.tools";

export const conformanceServer: McpServerDefinition = {
  name: "conformance",
  version: "0.1.0",
  instructions: "Conformance fixture: the tools, resources and prompts of the MCP conformance suite's server scenarios.",
  tools: wrappedScenarioTools,
  extend: (server) => {
    registerScenarioTools(server);
    registerScenarioResources(server);
    registerScenarioPrompts(server);
  },
};
