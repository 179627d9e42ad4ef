/**
 * The gateway's use of the outbound MCP client (workers/mcp-client/) for one source: its endpoint
 * (headers, the bridge's environment header), the URL re-check before every
 * connection, and the tool listing as the inventory stores it. Used by the source's Durable Object
 * (connections, discovery) and by the stateless call path in the Worker.
 */
import { type FetchLike, type McpClientConnection, type McpEndpoint, connectMcp, listAllTools, type SessionInfo } from "../mcp-client/connect";
import { BRIDGE_ENV_HEADER, encodeBridgeEnv } from "../mcp-client/bridge-protocol";
import { McpClientError } from "../mcp-client/errors";
import { storedJsonProblem } from "../lib/stored-json";
import { type InventoryLimitVars, inventoryLimits } from "./inventory-limits";
import { boundTool, tooManyTools } from "./listed-tools";
import { checkUpstreamUrl } from "./upstream-failure";
import type { UpstreamConfig, UpstreamTool } from "./upstream.types";

export const GATEWAY_CLIENT_NAME = "mcp-edge-gateway";
/** Each of a tool's schemas and its annotations, as stored in the inventory (source_tools) and listed on /mcp. */
const MAX_TOOL_JSON_BYTES = 256 * 1024;

/** Where and how a source's requests go: its headers, and for stdio the bridge's environment header. */
export function upstreamEndpoint(config: UpstreamConfig, fetch: FetchLike): McpEndpoint {
  const env = config.transport === "stdio" && config.env && Object.keys(config.env).length > 0 ? config.env : undefined;
  return {
    url: config.url,
    transport: config.transport === "sse" ? "sse" : "streamable_http",
    fetch,
    headers: env ? { ...config.headers, [BRIDGE_ENV_HEADER]: encodeBridgeEnv(env) } : { ...config.headers },
  };
}

export interface OpenOptions {
  resume?: SessionInfo | undefined;
  onToolsChanged?: (() => void) | undefined;
}

/**
 * Connects to the source, 2025 handshake first (connect.ts `legacy-first`). The URL is checked
 * first, with the setting the config carries: this is where every connection of the sessionful
 * path and of discovery is opened.
 */
export async function openUpstream(config: UpstreamConfig, fetch: FetchLike, options: OpenOptions = {}): Promise<McpClientConnection> {
  checkUpstreamUrl(config.url, config.allowPrivateUpstreams, config.selfOrigin);
  return connectMcp(upstreamEndpoint(config, fetch), {
    clientName: GATEWAY_CLIENT_NAME,
    timeoutMs: config.timeoutMs,
    negotiation: "legacy-first",
    resume: options.resume,
    onToolsChanged: options.onToolsChanged,
  });
}

/** Tools read from the upstream, as the inventory stores them, with its 2026-07-28 list cache hint. */
export interface UpstreamListing {
  tools: UpstreamTool[];
  ttlMs: number | null;
}

/**
 * Every tool of the upstream, as the inventory keeps it. A tool's schemas and annotations are stored
 * (source_tools) and listed on the owner's /mcp: one no common client can parse is refused here, as
 * the upstream's protocol error, and so is a list longer than the per-source limit (`limits`, the
 * Worker's vars); each tool's text is cleaned and bounded (listed-tools.ts).
 */
export async function listUpstreamTools(
  connection: McpClientConnection,
  timeoutMs: number,
  limitVars: InventoryLimitVars,
): Promise<UpstreamListing> {
  const listing = await listAllTools(connection, timeoutMs);
  const limits = inventoryLimits(limitVars);
  const tooMany = tooManyTools(listing.tools.length, limits);
  if (tooMany) throw new McpClientError("protocol", tooMany, false, false);
  const tools = listing.tools.map((tool): UpstreamTool => {
    for (const [field, value] of [["inputSchema", tool.inputSchema], ["outputSchema", tool.outputSchema], ["annotations", tool.annotations]] as const) {
      const problem = value === undefined ? undefined : storedJsonProblem(value, MAX_TOOL_JSON_BYTES);
      if (problem) throw new McpClientError("protocol", `tools/list: tool "${tool.name.slice(0, 64)}" ${field}: ${problem}`, false, false);
    }
    const raw = {
      name: tool.name,
      title: tool.title ?? tool.annotations?.title ?? null,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? null,
      annotations: { ...tool.annotations },
    };
    return boundTool(raw, limits);
  });
  return { tools, ttlMs: listing.ttlMs };
}
