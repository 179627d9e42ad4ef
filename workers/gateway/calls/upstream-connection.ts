/**
 * The gateway's use of the outbound MCP client (workers/mcp-client/) for one source: its endpoint
 * (headers, the bridge's environment header, SELF routing) and the URL re-check before every
 * connection. Used by the source's Durable Object (connections, discovery) and by the stateless
 * call path in the Worker; the tool listing over a connection is upstream-listing.ts's.
 */
import { type FetchLike, type McpClientConnection, type McpEndpoint, connectMcp, type SessionInfo } from "../../mcp-client/connect";
import { BRIDGE_ENV_HEADER, encodeBridgeEnv } from "../../mcp-client/bridge-protocol";
import { checkUpstreamUrl } from "./upstream-failure";
import type { UpstreamConfig } from "../sources/upstream.types";

export const GATEWAY_CLIENT_NAME = "mcp-edge-gateway";

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
