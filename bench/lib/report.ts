/**
 * Aggregates rounds (median rps/p50/p99 per cell, errors summed over rounds), computes the
 * issue's target ratios, prints them, and writes bench/results/.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CpuSummary } from "./cpu-phase";
import type { Tool } from "./mcp";
import type { ProfileSummary } from "./profile-report";
import type { CellSamples } from "./rounds";
import { median, round } from "./stats";
import type { TargetName } from "./targets";

/** One row of latest.json: exactly this shape, nothing more. */
export interface ResultRow {
  target: TargetName;
  tool: Tool;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}

export interface Ratio {
  name: string;
  value: number;
  target: string;
  met: boolean;
}

export function aggregate(cells: readonly CellSamples[]): ResultRow[] {
  return cells.map((cell) => ({
    target: cell.target,
    tool: cell.tool,
    rps: round(median(cell.rounds.map((sample) => sample.rps))),
    p50_ms: round(median(cell.rounds.map((sample) => sample.p50_ms))),
    p99_ms: round(median(cell.rounds.map((sample) => sample.p99_ms))),
    errors: cell.rounds.reduce((sum, sample) => sum + sample.errors, 0),
  }));
}

function find(rows: readonly ResultRow[], target: TargetName, tool: Tool): ResultRow | undefined {
  return rows.find((row) => row.target === target && row.tool === tool);
}

/** The issue's goals: throughput vs the matching peer, and p99 no worse than twice the peer's. */
export function ratios(rows: readonly ResultRow[]): Ratio[] {
  const goals: { tool: Tool; peer: TargetName; minThroughput: number }[] = [
    { tool: "tools/list", peer: "node-sdk", minThroughput: 1.0 },
    { tool: "list_tasks", peer: "d1-floor", minThroughput: 0.8 },
    { tool: "add_task", peer: "d1-floor", minThroughput: 0.8 },
  ];
  const result: Ratio[] = [];
  for (const goal of goals) {
    const edge = find(rows, "mcp-edge", goal.tool);
    const peer = find(rows, goal.peer, goal.tool);
    if (!edge || !peer) continue;
    const throughput = edge.rps / peer.rps;
    result.push({ name: `${goal.tool} rps: mcp-edge / ${goal.peer}`, value: round(throughput), target: `≥ ${goal.minThroughput.toFixed(1)}×`, met: throughput >= goal.minThroughput });
    const p99 = edge.p99_ms / peer.p99_ms;
    result.push({ name: `${goal.tool} p99: mcp-edge / ${goal.peer}`, value: round(p99), target: "≤ 2.0×", met: p99 <= 2 });
  }
  return result;
}

/** Context ratios with no goal attached: how far each target is from the ceiling. */
export function ceilingShares(rows: readonly ResultRow[]): { name: string; value: number }[] {
  return rows
    .filter((row) => row.target !== "ceiling")
    .flatMap((row) => {
      const ceiling = find(rows, "ceiling", row.tool);
      return ceiling ? [{ name: `${row.target} ${row.tool} rps / ceiling`, value: round(row.rps / ceiling.rps) }] : [];
    });
}

export function printTable(rows: readonly ResultRow[], cells: readonly CellSamples[]): void {
  const header = ["target", "tool", "req/s", "p50 ms", "p99 ms", "errors", "req/s range over rounds"];
  const lines = rows.map((row) => {
    const rps = cells.find((cell) => cell.target === row.target && cell.tool === row.tool)?.rounds.map((sample) => sample.rps) ?? [];
    const range = rps.length > 0 ? `${Math.min(...rps).toFixed(0)}–${Math.max(...rps).toFixed(0)}` : "";
    return [row.target, row.tool, row.rps.toFixed(0), row.p50_ms.toFixed(2), row.p99_ms.toFixed(2), String(row.errors), range];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]) => cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  console.log(`\n${format(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const line of lines) console.log(format(line));
}

export function printRatios(list: readonly Ratio[]): void {
  console.log("\nIssue targets:");
  for (const ratio of list) console.log(`  ${ratio.name.padEnd(36)} ${ratio.value.toFixed(2)}×  (target ${ratio.target})  ${ratio.met ? "met" : "NOT met"}`);
}

export function writeResults(dir: string, date: string, rows: readonly ResultRow[], extra: unknown): string[] {
  mkdirSync(dir, { recursive: true });
  const files = [
    [join(dir, `${date}.json`), rows],
    [join(dir, "latest.json"), rows],
    [join(dir, `${date}-extra.json`), extra],
    [join(dir, "latest-extra.json"), extra],
  ] as const;
  for (const [path, value] of files) writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return files.map(([path]) => path);
}

export function printCpu(measurements: readonly CpuSummary[]): void {
  console.log("\nServer CPU per request (sequential, 1 connection; process CPU from /proc; median of passes):");
  for (const m of measurements) {
    const range = `(${m.cpu_ms_range[0].toFixed(2)}–${m.cpu_ms_range[1].toFixed(2)})`;
    console.log(`  ${`${m.target} ${m.tool}`.padEnd(46)} ${m.cpu_ms_per_request.toFixed(2).padStart(6)} ms CPU ${range.padEnd(13)} ${m.wall_ms_per_request.toFixed(2).padStart(6)} ms wall`);
  }
}

export function printProfile(profile: Partial<Record<Tool, ProfileSummary>>): void {
  for (const [tool, summary] of Object.entries(profile)) {
    console.log(`\nmcp-edge ${tool} in workerd, V8 profile: ${summary.activeMsPerRequest.toFixed(2)} ms active JS per request (inflated by the profiler); inclusive stages:`);
    for (const stage of summary.byStage) {
      if (stage.share < 0.005) continue;
      console.log(`  ${(stage.share * 100).toFixed(1).padStart(5)} %  ${stage.name}`);
    }
  }
  console.log(
    "  (stages nest, so they do not add up; Error construction — the teardown stage — is over-sampled under the\n" +
      "   inspector: an A/B without the profiler found it below noise, see docs/performance.md)",
  );
}
