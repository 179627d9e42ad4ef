/**
 * mcp-edge tools list                      — list the tools at MCP_URL
 * mcp-edge tools call <name> ['<json>']    — call one, print its result
 *
 * MCP_URL (or --url) names the server; MCP_TOKEN (or --token) is sent as a bearer token.
 */
import { parseArgs } from "node:util";
import { bearer, closeMcp, connectMcp } from "../../workers/mcp-client/connect";

export const TOOLS_USAGE = `mcp-edge tools list [--url URL] [--token TOKEN] [--json]
mcp-edge tools call <tool> ['{"arg":"value"}'] [--url URL] [--token TOKEN] [--json]`;

export async function runTools(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: "string" }, token: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const url = values.url ?? process.env["MCP_URL"];
  const token = values.token ?? process.env["MCP_TOKEN"];
  const [verb, name, rawArgs] = positionals;
  if ((verb !== "list" && verb !== "call") || (verb === "call" && !name)) throw new Error(`usage:\n${TOOLS_USAGE}`);
  if (!url) throw new Error("Set MCP_URL (or pass --url) to the MCP server's URL, e.g. http://localhost:8787/mcp/tasks");

  const connection = await connectMcp(
    { url, headers: bearer(token) },
    { clientName: "mcp-edge-cli", timeoutMs: 5_000, negotiation: "auto" },
  );
  const client = connection.client;
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
    await closeMcp(connection);
  }
}
