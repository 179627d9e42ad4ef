/**
 * Which layer each source file of the Workers is in, by the patterns of .dependency-cruiser-layers.cjs
 * (decision 0059): what `npm run lint:deps` checks first (bin/check-layers.ts), so that the
 * dependency rules, which speak of layers, see every file.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { z } from "zod";
import { ROOT } from "./wrangler";

/** The folders whose every source file must be in a layer. */
export const LAYERED_FOLDERS = ["workers", "durable-objects", "d1"] as const;

const SOURCE_FILE = /[.](ts|mts|cts|js|mjs|cjs)$/;

/** Layer name → the regular expression its files' paths match (relative to the repository, with `/`). */
export type Layers = Record<string, string>;

export function loadLayers(root = ROOT): Layers {
  const config: unknown = createRequire(import.meta.url)(join(root, ".dependency-cruiser-layers.cjs"));
  return z.object({ LAYERS: z.record(z.string(), z.string()) }).parse(config).LAYERS;
}

export interface Placement {
  /** Every layer, in the config's order, with its files. */
  byLayer: Map<string, string[]>;
  /** Files no layer's pattern matches: the dependency rules could not see them. */
  unplaced: string[];
  /** Files several layers' patterns match: which rules apply would be a matter of luck. */
  ambiguous: { file: string; layers: string[] }[];
}

export function placeFiles(files: readonly string[], layers: Layers): Placement {
  const patterns = Object.entries(layers).map(([name, pattern]) => [name, new RegExp(pattern)] as const);
  const byLayer = new Map<string, string[]>(patterns.map(([name]) => [name, []]));
  const unplaced: string[] = [];
  const ambiguous: Placement["ambiguous"] = [];
  for (const file of files) {
    const matching = patterns.filter(([, pattern]) => pattern.test(file)).map(([name]) => name);
    if (matching.length === 0) unplaced.push(file);
    else if (matching.length > 1) ambiguous.push({ file, layers: matching });
    else byLayer.get(matching[0]!)?.push(file);
  }
  return { byLayer, unplaced, ambiguous };
}

/** The source files of the layered folders, tracked or new; never ignored ones, such as a bundle wrangler wrote. */
export function sourceFiles(root = ROOT): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...LAYERED_FOLDERS], {
    cwd: root,
    encoding: "utf8",
  });
  return [...new Set(listed.split("\n"))].filter((file) => SOURCE_FILE.test(file) && existsSync(join(root, file))).sort();
}
