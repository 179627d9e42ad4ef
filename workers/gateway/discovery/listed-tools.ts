/**
 * An upstream's tools/list made into what the gateway keeps (decisions 0049, 0050): a list longer
 * than the per-source limit is refused; each tool's description, title and the descriptions and
 * titles inside its schemas and annotations are cleaned (tool-text.ts) and the description and title
 * shortened to their limits, each change named in the tool's warnings. It runs where the list
 * arrives — the source's Durable Object, for a discovery and after list_changed — so neither its
 * storage nor the RPC to the Worker carries more than the bounds allow.
 */
import type { JsonObject } from "../../lib/json";
import { formatCount, INVENTORY_SETTINGS, type InventoryLimits } from "./inventory-limits";
import { cleanSchemaText, cleanText, describeRemoved, type RemovedCounts, shorten } from "./tool-text";
import type { UpstreamTool } from "../sources/upstream.types";

/** A tool as the MCP client read it, its schemas already within the stored-JSON limits. */
export interface RawTool {
  name: string;
  title: string | null;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
  annotations: JsonObject;
  /** Its MCP Apps `_meta.ui`; null or absent without one. */
  ui?: JsonObject | null | undefined;
}

/** Why a list of `count` tools is refused, or undefined when it is within the limit. */
export function tooManyTools(count: number, limits: Pick<InventoryLimits, "toolsPerSource">): string | undefined {
  if (count <= limits.toolsPerSource) return undefined;
  const { setting } = INVENTORY_SETTINGS.toolsPerSource;
  const limit = formatCount(limits.toolsPerSource);
  return `tools/list: the upstream lists ${formatCount(count)} tools; a source may have at most ${limit} (${setting})`;
}

function removedWarning(where: string, counts: RemovedCounts): string[] {
  const removed = describeRemoved(counts);
  return removed === "" ? [] : [`${where}: removed ${removed}`];
}

function bounded(where: "description" | "title", text: string, max: number, warnings: string[]): string {
  if (text.length <= max) return text;
  const setting = where === "description" ? INVENTORY_SETTINGS.descriptionChars.setting : INVENTORY_SETTINGS.titleChars.setting;
  warnings.push(`${where}: shortened from ${formatCount(text.length)} to ${formatCount(max)} characters (${setting})`);
  return shorten(text, max);
}

export function boundTool(tool: RawTool, limits: Pick<InventoryLimits, "descriptionChars" | "titleChars">): UpstreamTool {
  const warnings: string[] = [];
  const counts = { description: {}, title: {}, input: {}, output: {}, annotations: {} } satisfies Record<string, RemovedCounts>;
  const description = cleanText(tool.description, "description", counts.description);
  const title = tool.title === null ? "" : cleanText(tool.title, "title", counts.title);
  const inputSchema = cleanSchemaText(tool.inputSchema, counts.input);
  const outputSchema = tool.outputSchema === null ? null : cleanSchemaText(tool.outputSchema, counts.output);
  const annotations = cleanSchemaText(tool.annotations, counts.annotations);
  warnings.push(
    ...removedWarning("description", counts.description),
    ...removedWarning("title", counts.title),
    ...removedWarning("input schema descriptions and titles", counts.input),
    ...removedWarning("output schema descriptions and titles", counts.output),
    ...removedWarning("annotations", counts.annotations),
  );
  return {
    name: tool.name,
    title: title === "" ? null : bounded("title", title, limits.titleChars, warnings),
    description: bounded("description", description, limits.descriptionChars, warnings),
    inputSchema,
    outputSchema,
    annotations,
    ui: tool.ui ?? null,
    warnings,
  };
}
