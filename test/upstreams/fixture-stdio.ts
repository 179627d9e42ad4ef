/**
 * A stdio MCP server for the bridge tests (run by `mcp-edge bridge --manifest
 * test/upstreams/fixture-plugin.json`, and as the `github` plugin of test/upstreams/plugins): tools
 * that report the process they run in, read a gateway-set variable, take a while, or kill their
 * own process mid-call.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const schema = { type: "object", properties: {}, additionalProperties: true } as const;
const server = new Server({ name: "fixture-stdio", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: "pid", description: "The process id serving this call", inputSchema: schema },
    { name: "greeting", description: "FIXTURE_GREETING as the process sees it", inputSchema: schema },
    {
      name: "variable",
      description: "The environment variable `name` as the process sees it",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    {
      name: "slow",
      description: "Answers after `ms` milliseconds",
      inputSchema: { type: "object", properties: { ms: { type: "number" } } },
    },
    { name: "crash", description: "Exits the process without answering (a crash mid-call)", inputSchema: schema },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
  switch (request.params.name) {
    case "pid":
      return text(String(process.pid));
    case "greeting":
      return text(process.env["FIXTURE_GREETING"] ?? "(unset)");
    case "variable":
      return text(process.env[String(request.params.arguments?.["name"])] ?? "(unset)");
    case "slow": {
      const ms = Number(request.params.arguments?.["ms"] ?? 1000);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`slept ${ms} ms`);
    }
    case "crash":
      setTimeout(() => process.exit(3), 50);
      return new Promise<never>(() => undefined);
    default:
      return { isError: true, content: [{ type: "text" as const, text: `unknown tool ${request.params.name}` }] };
  }
});

await server.connect(new StdioServerTransport());
