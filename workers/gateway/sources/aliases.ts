/**
 * How a source's tools are named on /mcp across rediscoveries, as a pure function of the previous
 * inventory and the new tool list.
 *
 * - A tool keeps the alias it had (by upstream name), so `<slug>__<alias>` is stable.
 * - A new tool gets its sanitised name, suffixed `_2`, `_3` … only when another current tool holds it.
 * - A rename is a tool that disappeared and one that appeared with the same description and input
 *   schema (canonical JSON), when that pairing is unambiguous (exactly one of each). The new tool is
 *   listed under its own name; the old alias — and the aliases the old tool already had — keep
 *   calling it, unlisted.
 * - An alias never shadows a current tool's own alias: such a clash is not created (or, for an
 *   older alias, dropped) and reported as a warning. Aliases of tools that are gone are dropped.
 */
import { toolAlias } from "./sources.schema";

export interface KnownTool {
  name: string;
  alias: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface NewTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ExtraAlias {
  alias: string;
  toolName: string;
}

export interface AliasPlan {
  /** Upstream name → its alias (the name after `<slug>__` that /mcp lists). */
  primary: Map<string, string>;
  /** Unlisted aliases that still call a tool. */
  extra: ExtraAlias[];
  /** Renamed tools: old alias → new alias (per-user hidden entries follow the tool). */
  renamed: { from: string; to: string; oldName: string; newName: string }[];
  warnings: string[];
}

/** JSON with object keys sorted, so two equal schemas compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function fingerprint(tool: { description: string; inputSchema: Record<string, unknown> }): string {
  return canonicalJson([tool.description, tool.inputSchema]);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}

export function planAliases(
  slug: string,
  previous: readonly KnownTool[],
  previousExtra: readonly ExtraAlias[],
  tools: readonly NewTool[],
): AliasPlan {
  const before = new Map(previous.map((tool) => [tool.name, tool]));
  const now = new Set(tools.map((tool) => tool.name));
  const primary = new Map<string, string>();
  const used = new Set<string>();

  for (const tool of tools) {
    const kept = before.get(tool.name)?.alias;
    if (kept !== undefined && !used.has(kept)) {
      primary.set(tool.name, kept);
      used.add(kept);
    }
  }
  for (const tool of tools) {
    if (primary.has(tool.name)) continue;
    const base = toolAlias(tool.name);
    let alias = base;
    for (let n = 2; used.has(alias); n++) alias = `${base}_${n}`;
    primary.set(tool.name, alias);
    used.add(alias);
  }

  // Renames: pair a vanished tool with an appeared one only when the fingerprint is unambiguous.
  const vanished = groupBy(
    previous.filter((tool) => !now.has(tool.name)),
    fingerprint,
  );
  const appeared = groupBy(
    tools.filter((tool) => !before.has(tool.name)),
    fingerprint,
  );
  const renamedTo = new Map<string, string>();
  const renamed: AliasPlan["renamed"] = [];
  for (const [key, gone] of vanished) {
    const came = appeared.get(key);
    if (gone.length !== 1 || came?.length !== 1) continue;
    const [oldTool, newTool] = [gone[0]!, came[0]!];
    renamedTo.set(oldTool.name, newTool.name);
    renamed.push({ from: oldTool.alias, to: primary.get(newTool.name)!, oldName: oldTool.name, newName: newTool.name });
  }

  const warnings: string[] = [];
  const extra: ExtraAlias[] = [];
  const taken = new Set<string>();
  const offer = (alias: string, toolName: string, why: string) => {
    if (primary.get(toolName) === alias || taken.has(alias)) return;
    const holder = [...primary].find(([, a]) => a === alias)?.[0];
    if (holder !== undefined) {
      warnings.push(`alias ${slug}__${alias} (${why}) clashes with the tool ${holder} of the same source; not created`);
      return;
    }
    extra.push({ alias, toolName });
    taken.add(alias);
  };
  for (const { alias, toolName } of previousExtra) {
    const target = now.has(toolName) ? toolName : renamedTo.get(toolName);
    if (target !== undefined) offer(alias, target, `an older name of ${target}`);
  }
  for (const { from, oldName, newName } of renamed) offer(from, newName, `${oldName} renamed to ${newName}`);

  return { primary, extra, renamed, warnings };
}
