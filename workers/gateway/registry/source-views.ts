/**
 * What the gateway's APIs show of a source and its tools: never a secret value, never the bridge
 * token (only whether there is one), never ciphertext.
 */
import { isHeld, type PinnedToolRow, type SourceAliasRow, type SourceRow } from "../sources/sources.repo";
import { gatewayName } from "../sources/gateway-names";
import type { SourceView } from "../sources/sources.schema";

export interface SourceToolView {
  name: string;
  alias: string;
  gateway_name: string;
  aliases: string[];
  hidden: boolean;
  title: string | null;
  description: string;
  annotations: Record<string, unknown>;
  warnings: string[];
  held: boolean;
  change: "new" | "changed" | null;
}

export interface SourceDetail {
  source: SourceView;
  tools: SourceToolView[];
}

/** The warning a source carries while some of its tools wait for approval: in the refresh that held them, and every read after. */
function heldWarning(row: SourceRow, held: number): string[] {
  if (held === 0) return [];
  const tools = held === 1 ? "1 tool is" : `${held} tools are`;
  return [
    `${tools} held — not listed on /mcp and not callable — because the upstream changed their definitions or added them ` +
      `since you approved this source's tools: see GET /api/sources/${row.id}/changes, then approve with ` +
      `POST /api/sources/${row.id}/changes/approve or in the console`,
  ];
}

/** `heldToolCount`: its tools waiting for the owner's approval, when the caller counted them (listSources does). */
export function toView(row: SourceRow & { heldToolCount?: number }, toolCount: number): SourceView {
  const held = row.heldToolCount ?? 0;
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
    warnings: [...heldWarning(row, held), ...row.discoveryWarnings],
    held_tool_count: held,
    inventory_stale_at: row.inventoryStaleAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** `hiddenAliases`: the aliases of this source's tools the owner hid. */
export function toDetail(
  row: SourceRow,
  tools: readonly PinnedToolRow[],
  aliases: readonly SourceAliasRow[],
  hiddenAliases: ReadonlySet<string>,
): SourceDetail {
  const heldToolCount = tools.filter(isHeld).length;
  return {
    source: toView({ ...row, heldToolCount }, tools.length),
    tools: tools.map((tool) => {
      const held = isHeld(tool);
      return {
        name: tool.name,
        alias: tool.alias,
        gateway_name: gatewayName(row.slug, tool.alias),
        aliases: aliases.filter((a) => a.toolName === tool.name).map((a) => gatewayName(row.slug, a.alias)),
        hidden: hiddenAliases.has(tool.alias),
        title: tool.title,
        description: tool.description,
        annotations: tool.annotations,
        warnings: tool.textWarnings,
        held,
        change: held ? (tool.approvedHash === null ? "new" : "changed") : null,
      };
    }),
  };
}
