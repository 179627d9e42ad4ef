/**
 * A source's tool list as the inventory stores it, read over an open connection (the source's
 * Durable Object lists at discovery and after notifications/tools/list_changed): refused when the
 * upstream lists too many tools or a schema no common client can parse, each tool's text cleaned
 * and bounded (listed-tools.ts).
 */
import { type McpClientConnection, listAllTools } from "../../mcp-client/connect";
import { McpClientError } from "../../mcp-client/errors";
import { storedJsonProblem } from "../../lib/stored-json";
import { type InventoryLimitVars, inventoryLimits } from "./inventory-limits";
import { boundTool, tooManyTools } from "./listed-tools";
import type { UpstreamTool } from "../sources/upstream.types";
import { isJsonObject, type JsonObject } from "../../lib/json";
import { LEGACY_UI_URI_KEY } from "../calls/uri-rewrite";

/** Each of a tool's schemas and its annotations, as stored in the inventory (source_tools) and listed on /mcp. */
const MAX_TOOL_JSON_BYTES = 256 * 1024;

/**
 * A tool's MCP Apps UI (`_meta.ui`, or only the legacy flat `_meta["ui/resourceUri"]`), kept to be
 * listed on /mcp with its resource URI named for /mcp (decision 0068); null for a tool without one.
 */
function uiOf(meta: unknown): JsonObject | null {
  if (!isJsonObject(meta)) return null;
  const ui = isJsonObject(meta["ui"]) ? meta["ui"] : undefined;
  const legacy = meta[LEGACY_UI_URI_KEY];
  if (ui) return typeof ui["resourceUri"] === "string" || typeof legacy !== "string" ? ui : { ...ui, resourceUri: legacy };
  return typeof legacy === "string" ? { resourceUri: legacy } : null;
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
    const ui = uiOf(tool._meta);
    for (const [field, value] of [
      ["inputSchema", tool.inputSchema],
      ["outputSchema", tool.outputSchema],
      ["annotations", tool.annotations],
      ["_meta.ui", ui ?? undefined],
    ] as const) {
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
      ui,
    };
    return boundTool(raw, limits);
  });
  return { tools, ttlMs: listing.ttlMs };
}
