/**
 * npx mcp-edge tools list                      — list the tools at MCP_URL
 * npx mcp-edge tools call <name> ['<json>']    — call one, print its result
 *
 * MCP_URL (or --url) names the server; MCP_TOKEN (or --token) is sent as a bearer token.
 */
import { parseArgs } from "node:util";
import { connectMcp } from "./lib/mcp-client";

const USAGE = `usage: mcp-edge tools list [--url URL] [--token TOKEN]
       mcp-edge tools call <tool> ['{"arg":"value"}'] [--url URL] [--token TOKEN]
MCP_URL and MCP_TOKEN are read from the environment when the flags are absent.`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { url: { type: "string" }, token: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const url = values.url ?? process.env["MCP_URL"];
  const token = values.token ?? process.env["MCP_TOKEN"];
  const [group, verb, name, rawArgs] = positionals;
  if (group !== "tools" || (verb !== "list" && verb !== "call") || (verb === "call" && !name)) throw new Error(USAGE);
  if (!url) throw new Error("Set MCP_URL (or pass --url) to the MCP server's URL, e.g. http://localhost:8787/mcp/tasks");

  const client = await connectMcp({ url, token });
  try {
    if (verb === "list") {
      const { tools } = await client.listTools();
      if (values.json) console.log(JSON.stringify(tools, null, 2));
      else for (const tool of tools) console.log(`${tool.name.padEnd(24)} ${tool.title ?? ""}`);
      return 0;
    }
    let args: Record<string, unknown> = {};
    if (rawArgs) {
      try {
        args = JSON.parse(rawArgs) as Record<string, unknown>;
      } catch {
        throw new Error(`Tool arguments must be a JSON object, got: ${rawArgs}`);
      }
    }
    const result = await client.callTool({ name: name!, arguments: args });
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else for (const block of result.content) if (block.type === "text") console.log(block.text);
    return result.isError ? 1 : 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
