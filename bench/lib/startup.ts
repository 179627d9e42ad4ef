/**
 * Startup, measured the way Cloudflare measures it: `wrangler check startup` imports the Worker's
 * main module in a fresh workerd with the inspector on and reports the startup CPU profile's
 * "Active" time, beside the bundle size (raw / gzip) of what `wrangler deploy` would upload.
 *
 * Every variant is built once, then profiled `reps` times in alternating order (the machine is
 * shared: alternation spreads other load over all of them). The row keeps every repetition, the
 * median and the range, and where the median repetition's time went, by package.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { CpuProfile, ProfileNode } from "./cdp";
import { bundleSections, sectionAt, summarizeProfile } from "./profile-report";
import { median, round } from "./stats";

const run = promisify(execFile);

export interface StartupVariant {
  name: string;
  /** How the bundle was made, for the report. */
  build: string;
  /** A `wrangler deploy --outfile` bundle (multipart: metadata + modules). */
  bundle: string;
}

export interface StartupRow {
  name: string;
  build: string;
  /** Wrangler's own line: "Bundle: 1234.01 KiB / gzip: 212.82 KiB". */
  wrangler_bundle_line: string;
  bundle_kib: number;
  bundle_gzip_kib: number;
  active_ms: { median: number; min: number; max: number; reps: number[] };
  gc_ms_median: number;
  /** Self time of the median repetition, by package (shares of its active time). */
  by_package: { name: string; ms: number; share: number }[];
  /** Samples with a frame of the package anywhere on the stack (so nested calls count once). */
  inclusive: { name: string; ms: number; share: number }[];
  top_functions: { name: string; ms: number; share: number }[];
}

const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

/** `wrangler deploy --dry-run --outfile`: the upload bundle, nothing deployed. */
export async function wranglerBundle(cwd: string, outFile: string, configPath?: string): Promise<string> {
  const args = ["wrangler", "deploy", "--dry-run", "--outfile", outFile, ...(configPath ? ["-c", configPath] : [])];
  await run("npx", args, { cwd, env: WRANGLER_ENV, maxBuffer: 16 * 1024 * 1024, timeout: 180_000 });
  return outFile;
}

/**
 * A wrangler.toml for the template peer: its one file as `main`, with mcp-edge's compatibility
 * date and flags so both run on the same runtime behaviour.
 */
export function templatePeerConfig(root: string, tmp: string): string {
  const ours = readFileSync(join(root, "wrangler.toml"), "utf8");
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(ours)?.[1] ?? "2026-11-01";
  const flags = /^compatibility_flags\s*=\s*(\[[^\]]*\])/m.exec(ours)?.[1] ?? '["nodejs_compat"]';
  const path = join(tmp, "template-peer.toml");
  writeFileSync(
    path,
    [
      `name = "template-peer"`,
      `main = ${JSON.stringify(join(root, "bench/peers/template.worker.ts"))}`,
      `compatibility_date = "${date}"`,
      `compatibility_flags = ${flags}`,
      "",
    ].join("\n"),
  );
  return path;
}

interface Measured {
  activeMs: number;
  gcMs: number;
  bundleLine: string;
  profilePath: string;
}

async function checkStartup(cwd: string, bundle: string, profilePath: string): Promise<Measured> {
  const { stdout } = await run("npx", ["wrangler", "check", "startup", "--worker", bundle, "--outfile", profilePath], {
    cwd,
    env: WRANGLER_ENV,
    maxBuffer: 4 * 1024 * 1024,
    timeout: 180_000,
  });
  const active = /Active: ([\d.]+) ms \(including ([\d.]+) ms garbage collection\)/.exec(stdout);
  const bundleLine = /Bundle: [^\n]*/.exec(stdout)?.[0]?.trim();
  if (!active || !bundleLine) throw new Error(`unexpected wrangler check startup output:\n${stdout.slice(0, 1500)}`);
  return { activeMs: Number(active[1]), gcMs: Number(active[2]), bundleLine, profilePath };
}

/** The main module's name and text inside an upload bundle (to map profile lines to packages). */
async function mainModule(bundle: string): Promise<{ name: string; text: string }> {
  const raw = await readFile(bundle);
  const boundary = raw.subarray(2, raw.indexOf(10)).toString().trim();
  const form = await new Response(raw, { headers: { "content-type": `multipart/form-data; boundary=${boundary}` } }).formData();
  const metadata = JSON.parse(String(form.get("metadata"))) as { main_module?: string };
  const name = metadata.main_module ?? "index.js";
  const main = form.get(name);
  if (!(main instanceof Blob)) throw new Error(`${bundle}: no main module`);
  return { name, text: await main.text() };
}

/** Inclusive time per package: a sample counts once for every package with a frame on its stack. */
function inclusiveByPackage(profile: CpuProfile, packageOf: (node: ProfileNode) => string | undefined): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const deltas = profile.timeDeltas ?? [];
  const totals = new Map<string, number>();
  (profile.samples ?? []).forEach((leaf, index) => {
    const weight = (deltas[index + 1] ?? 0) / 1000;
    const seen = new Set<string>();
    for (let node = byId.get(leaf); node; node = byId.get(parent.get(node.id) ?? -1)) {
      const pkg = packageOf(node);
      if (pkg) seen.add(pkg);
    }
    for (const pkg of seen) totals.set(pkg, (totals.get(pkg) ?? 0) + weight);
  });
  return totals;
}

async function describeProfile(
  bundle: string,
  measured: Measured,
): Promise<Pick<StartupRow, "by_package" | "inclusive" | "top_functions">> {
  const main = await mainModule(bundle);
  const sections = bundleSections(main.text);
  const profile = JSON.parse(await readFile(measured.profilePath, "utf8")) as CpuProfile;
  const summary = summarizeProfile(profile, sections, main.name, 1);
  const share = (ms: number) => round(ms / measured.activeMs);
  const inclusive = inclusiveByPackage(profile, (node) =>
    node.callFrame.url.endsWith(main.name) && node.callFrame.lineNumber >= 0 ? sectionAt(sections, node.callFrame.lineNumber) : undefined,
  );
  return {
    by_package: summary.byPackage.map((entry) => ({ name: entry.name, ms: round(entry.msPerRequest), share: share(entry.msPerRequest) })),
    inclusive: [...inclusive]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([name, ms]) => ({ name, ms: round(ms), share: share(ms) })),
    top_functions: summary.topFunctions
      .slice(0, 8)
      .map((entry) => ({ name: entry.name, ms: round(entry.msPerRequest), share: share(entry.msPerRequest) })),
  };
}

function kib(line: string, which: "raw" | "gzip"): number {
  const match = /Bundle: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(line);
  return Number(match?.[which === "raw" ? 1 : 2] ?? Number.NaN);
}

export async function measureStartup(cwd: string, tmp: string, variants: readonly StartupVariant[], reps: number): Promise<StartupRow[]> {
  const dir = join(tmp, "startup-profiles");
  await mkdir(dir, { recursive: true });
  const measured = variants.map((): Measured[] => []);
  for (let rep = 0; rep < reps; rep++) {
    for (let step = 0; step < variants.length; step++) {
      const index = (step + rep) % variants.length;
      const variant = variants[index]!;
      const result = await checkStartup(cwd, variant.bundle, join(dir, `${index}-${rep}.cpuprofile`));
      measured[index]!.push(result);
      console.log(
        `startup ${rep + 1}/${reps}  ${variant.name.padEnd(34)} Active ${result.activeMs.toFixed(1).padStart(6)} ms  (${result.bundleLine})`,
      );
    }
  }
  const rows: StartupRow[] = [];
  for (const [index, variant] of variants.entries()) {
    const runs = measured[index]!;
    const actives = runs.map((entry) => entry.activeMs);
    const middle = [...runs].sort((a, b) => a.activeMs - b.activeMs)[Math.floor(runs.length / 2)]!;
    const line = middle.bundleLine;
    rows.push({
      name: variant.name,
      build: variant.build,
      wrangler_bundle_line: line,
      bundle_kib: kib(line, "raw"),
      bundle_gzip_kib: kib(line, "gzip"),
      active_ms: { median: round(median(actives)), min: Math.min(...actives), max: Math.max(...actives), reps: actives },
      gc_ms_median: round(median(runs.map((entry) => entry.gcMs))),
      ...(await describeProfile(variant.bundle, middle)),
    });
  }
  return rows;
}

export function printStartup(rows: readonly StartupRow[]): void {
  console.log("\nStartup (wrangler check startup: Active CPU ms, median [range] over repetitions) and bundle (wrangler's KiB):");
  for (const row of rows) {
    const range = `[${row.active_ms.min.toFixed(1)}–${row.active_ms.max.toFixed(1)}]`;
    console.log(
      `  ${row.name.padEnd(34)} ${row.active_ms.median.toFixed(1).padStart(6)} ms ${range.padEnd(15)} ${row.bundle_kib.toFixed(0).padStart(6)} KiB / gzip ${row.bundle_gzip_kib.toFixed(0).padStart(5)} KiB`,
    );
  }
  for (const row of rows) {
    const top = row.inclusive.slice(0, 6).map((entry) => `${entry.name} ${entry.ms.toFixed(1)} ms`);
    console.log(`  ${row.name}: inclusive by package (median repetition): ${top.join(", ")}`);
  }
}

/**
 * The commit before the chat agent became its own Worker: mcp-edge with the agent bundled in, built
 * in the same run as the split Workers so "before" and "after" share the machine's conditions.
 */
export const BEFORE_THE_SPLIT = "1d72cc6";

/**
 * The tree of `commit` unpacked under `dir` (git archive, nothing checked out in this clone), with
 * this checkout's node_modules linked in, so wrangler builds it with the same packages.
 */
async function treeAt(root: string, commit: string, dir: string): Promise<string> {
  const tree = join(dir, `tree-${commit}`);
  await rm(tree, { recursive: true, force: true });
  await mkdir(tree, { recursive: true });
  await run("sh", ["-c", `git -C "${root}" archive ${commit} | tar -x -C "${tree}"`], { maxBuffer: 16 * 1024 * 1024 });
  await symlink(join(root, "node_modules"), join(tree, "node_modules"), "dir");
  return tree;
}

/**
 * The main Worker and the chat agent's Worker as wrangler builds them, beside the Cloudflare
 * template peer built the same way, and mcp-edge as it was before the split (one Worker with the
 * agent inside), built from that commit's tree by the same wrangler.
 */
export async function startupVariants(root: string, tmp: string): Promise<StartupVariant[]> {
  const dir = join(tmp, "startup-bundles");
  await mkdir(dir, { recursive: true });
  const before = await treeAt(root, BEFORE_THE_SPLIT, dir);
  return [
    {
      name: "mcp-edge",
      build: "wrangler deploy --dry-run (wrangler.toml)",
      bundle: await wranglerBundle(root, join(dir, "mcp-edge.bundle")),
    },
    {
      name: "mcp-edge-agent",
      build: "wrangler deploy --dry-run (workers/agent-worker/wrangler.toml)",
      bundle: await wranglerBundle(root, join(dir, "mcp-edge-agent.bundle"), join(root, "workers/agent-worker/wrangler.toml")),
    },
    {
      name: "template peer",
      build: "wrangler deploy --dry-run (bench/peers/template.worker.ts)",
      bundle: await wranglerBundle(root, join(dir, "template.bundle"), templatePeerConfig(root, dir)),
    },
    {
      name: `mcp-edge before the split (${BEFORE_THE_SPLIT})`,
      build: `wrangler deploy --dry-run (wrangler.toml at ${BEFORE_THE_SPLIT})`,
      bundle: await wranglerBundle(before, join(dir, "before-the-split.bundle")),
    },
  ];
}
