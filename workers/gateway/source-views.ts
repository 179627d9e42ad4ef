/**
 * What the gateway's APIs show of a source and its tools: never a secret value, never the bridge
 * token (only whether there is one), never ciphertext.
 */
import type { SourceAliasRow, SourceRow, SourceToolRow } from "./sources.repo";
import { gatewayName } from "./gateway-names";
import type { SourceView } from "./sources.schema";

export interface SourceToolView {
  name: string;
  alias: string;
  gateway_name: string;
  aliases: string[];
  hidden: boolean;
  description: string;
  annotations: Record<string, unknown>;
}

export interface SourceDetail {
  source: SourceView;
  tools: SourceToolView[];
}

export function toView(row: SourceRow, toolCount: number): SourceView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    source_type: row.sourceType,
    description: row.description,
    url: row.mcpServerUrl,
    mcp_server_url: row.mcpServerUrl,
    mcp_plugin_dir: row.mcpPluginDir,
    mcp_transport_type: row.mcpTransportType,
    mcp_lifecycle_mode: row.mcpLifecycleMode,
    // Secret values never leave the service, not even encrypted.
    mcp_env_vars: row.mcpEnvVars.map((v) => (v.secret ? { name: v.name, secret: true } : { name: v.name, secret: false, value: v.value })),
    mcp_command: row.mcpCommand,
    mcp_args: row.mcpArgs,
    mcp_runtime_hint: row.mcpRuntimeHint,
    manifest: row.manifest,
    has_bridge_token: row.bridgeToken !== null,
    timeout_ms: row.timeoutMs,
    enabled: row.enabled,
    hidden: row.hidden,
    tool_count: toolCount,
    last_discovered_at: row.lastDiscoveredAt,
    last_discovery_error: row.lastDiscoveryError,
    warnings: row.discoveryWarnings,
    inventory_stale_at: row.inventoryStaleAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** `hiddenAliases`: the aliases of this source's tools the owner hid. */
export function toDetail(row: SourceRow, tools: readonly SourceToolRow[], aliases: readonly SourceAliasRow[], hiddenAliases: ReadonlySet<string>): SourceDetail {
  return {
    source: toView(row, tools.length),
    tools: tools.map((tool) => ({
      name: tool.name,
      alias: tool.alias,
      gateway_name: gatewayName(row.slug, tool.alias),
      aliases: aliases.filter((a) => a.toolName === tool.name).map((a) => gatewayName(row.slug, a.alias)),
      hidden: hiddenAliases.has(tool.alias),
      description: tool.description,
      annotations: tool.annotations,
    })),
  };
}
