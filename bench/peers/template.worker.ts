/**
 * The startup peer: Cloudflare's stateless MCP template as published in the Agents SDK's examples
 * (`examples/mcp-worker`): the SDK's `McpServer` with one small zod-typed tool, served by
 * `createMcpHandler` as the whole Worker. Written here from that description, not copied. The bench
 * measures its startup (`wrangler check startup`) and bundle beside mcp-edge's, so "what a new
 * isolate costs" has a reference point on the same machine and wrangler.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { z } from "zod";

function greetingServer(): McpServer {
  const server = new McpServer({ name: "template-peer", version: "1.0.0" });
  server.registerTool(
    "greet",
    { description: "Greets someone by name", inputSchema: z.object({ name: z.string().optional() }) },
    async ({ name }) => ({ content: [{ type: "text", text: `Hello, ${name ?? "world"}!` }] }),
  );
  return server;
}

export default createMcpHandler(greetingServer);
