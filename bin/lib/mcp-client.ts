/** Connects an MCP client (2026-07-28 first, 2025 fallback) to MCP_URL with an optional bearer token. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export interface McpTarget {
  url: string;
  token?: string | undefined;
}

export async function connectMcp(target: McpTarget, timeoutMs = 5000): Promise<Client> {
  const client = new Client({ name: "mcp-edge-cli", version: "0.1.0" }, { versionNegotiation: { mode: "auto" } });
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: target.token ? { headers: { Authorization: `Bearer ${target.token}` } } : {},
  });
  await client.connect(transport, { timeout: timeoutMs });
  return client;
}
