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
  /** Set for a variant that swaps part of what ships (`+limiter-in-isolate`): shown, never judged. */
  reportedOnly?: true;
}

/** A compared variant that does not serve the Worker as it ships, so no target is judged on it (decision 0041). */
function swapsWhatShips(target: string): boolean {
  return target.endsWith("+limiter-in-isolate");
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
  // mcp-edge, and every other commit served beside it (`--compare`): the same goals, side by side.
  const edges = [...new Set(rows.map((row) => row.target))].filter((name) => name === "mcp-edge" || name.startsWith("mcp-edge@"));
  const result: Ratio[] = [];
  for (const goal of goals) {
    for (const name of edges) {
      const edge = find(rows, name, goal.tool);
      const peer = find(rows, goal.peer, goal.tool);
      if (!edge || !peer) continue;
      const throughput = edge.rps / peer.rps;
      const judged = swapsWhatShips(name) ? { reportedOnly: true as const } : {};
      result.push({
        name: `${goal.tool} rps: ${name} / ${goal.peer}`,
        value: round(throughput),
        target: `≥ ${goal.minThroughput.toFixed(1)}×`,
        met: throughput >= goal.minThroughput,
        ...judged,
      });
      const p99 = edge.p99_ms / peer.p99_ms;
      result.push({ name: `${goal.tool} p99: ${name} / ${goal.peer}`, value: round(p99), target: "≤ 2.0×", met: p99 <= 2, ...judged });
    }
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
  const format = (cells: string[]) =>
    cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  console.log(`\n${format(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const line of lines) console.log(format(line));
}

export function printRatios(list: readonly Ratio[]): void {
  console.log("\nIssue targets:");
  for (const ratio of list) {
    const verdict = ratio.reportedOnly ? "reported only: not the Worker as it ships" : ratio.met ? "met" : "NOT met";
    console.log(`  ${ratio.name.padEnd(44)} ${ratio.value.toFixed(2)}×  (target ${ratio.target})  ${verdict}`);
  }
}

/** `prefix` ("gateway-" for `--only gateway`) keeps a partial run from replacing the full run's files. */
export function writeResults(dir: string, date: string, rows: readonly unknown[], extra: unknown, prefix = ""): string[] {
  mkdirSync(dir, { recursive: true });
  const files = [
    [join(dir, `${prefix}${date}.json`), rows],
    [join(dir, `${prefix}latest.json`), rows],
    [join(dir, `${prefix}${date}-extra.json`), extra],
    [join(dir, `${prefix}latest-extra.json`), extra],
  ] as const;
  for (const [path, value] of files) writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return files.map(([path]) => path);
}

export function printCpu(measurements: readonly CpuSummary[]): void {
  console.log("\nServer CPU per request (sequential, 1 connection; process CPU from /proc; median of passes):");
  for (const m of measurements) {
    const range = `(${m.cpu_ms_range[0].toFixed(2)}–${m.cpu_ms_range[1].toFixed(2)})`;
    console.log(
      `  ${`${m.target} ${m.tool}`.padEnd(46)} ${m.cpu_ms_per_request.toFixed(2).padStart(6)} ms CPU ${range.padEnd(13)} ${m.wall_ms_per_request.toFixed(2).padStart(6)} ms wall`,
    );
  }
}

export function printProfile(profile: Record<string, ProfileSummary>): void {
  for (const [tool, summary] of Object.entries(profile)) {
    console.log(
      `\nmcp-edge ${tool} in workerd, V8 profile: ${summary.activeMsPerRequest.toFixed(2)} ms active JS per request (inflated by the profiler); inclusive stages:`,
    );
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

export interface GatewayStep extends ResultRow {
  /** This step's p50 minus the previous step's (the first step: 0). */
  added_p50_ms: number;
}

export interface GatewaySummary {
  /** The table's rows: `tools/call list_tasks` on /mcp/tasks vs `<slug>__list_tasks` on /mcp. */
  load: {
    connections: number;
    direct: ResultRow;
    gateway: ResultRow;
    rps_ratio: number;
    /** gateway / direct rps within each round (they ran back to back): less drift than the medians. */
    rps_ratio_per_round: number[];
    added_p50_ms: number;
    added_p99_ms: number;
    /** The same call to a session-keeping upstream, through its Durable Object (`--only gateway`). */
    sessionful?: ResultRow;
    /** Each commit served beside the work tree (`--only gateway --compare`): its own gateway ÷ its own direct call. */
    compared?: ComparedGateway[];
  };
  /** One connection: latency without queueing, step by step from the direct call to the gateway's. */
  latency: { connections: 1; steps: GatewayStep[]; added_p50_ms: number };
  targets: Ratio[];
}

export interface ComparedGateway {
  label: string;
  direct: ResultRow;
  gateway: ResultRow;
  rps_ratio: number;
  rps_ratio_per_round: number[];
}

/** Per-round ratio of two cells that ran back to back in the same rounds. */
function perRoundRatio(cells: readonly CellSamples[], numerator: TargetName, denominator: TargetName): number[] {
  const over = cells.find((cell) => cell.target === denominator && cell.tool === "list_tasks")?.rounds ?? [];
  const under = cells.find((cell) => cell.target === numerator && cell.tool === "list_tasks")?.rounds ?? [];
  return under.map((sample, index) => round(sample.rps / (over[index]?.rps ?? Number.NaN)));
}

function comparedGateways(rows: readonly ResultRow[], cells: readonly CellSamples[]): ComparedGateway[] {
  return rows.flatMap((row) => {
    if (!row.target.startsWith("gateway@")) return [];
    const label = row.target.slice("gateway@".length);
    const direct = find(rows, `mcp-edge@${label}`, "list_tasks");
    if (!direct) return [];
    return [
      {
        label,
        direct,
        gateway: row,
        rps_ratio: round(row.rps / direct.rps),
        rps_ratio_per_round: perRoundRatio(cells, `gateway@${label}`, `mcp-edge@${label}`),
      },
    ];
  });
}

function rowOf(rows: readonly ResultRow[], target: TargetName): ResultRow {
  const row = find(rows, target, "list_tasks");
  if (!row) throw new Error(`no ${target} list_tasks row`);
  return row;
}

export function gatewaySummary(
  rows: readonly ResultRow[],
  cells: readonly CellSamples[],
  connections: number,
  ladder: readonly ResultRow[],
): GatewaySummary {
  const direct = rowOf(rows, "mcp-edge");
  const gateway = rowOf(rows, "gateway");
  const perRound = perRoundRatio(cells, "gateway", "mcp-edge");
  const rpsRatio = gateway.rps / direct.rps;
  const addedLoaded = gateway.p50_ms - direct.p50_ms;
  const steps = ladder.map((row, index) => ({ ...row, added_p50_ms: index === 0 ? 0 : round(row.p50_ms - ladder[index - 1]!.p50_ms) }));
  const addedQuiet = rowOf(ladder, "gateway").p50_ms - rowOf(ladder, "mcp-edge").p50_ms;
  const sessionful = find(rows, "gateway sessionful", "list_tasks");
  const compared = comparedGateways(rows, cells);
  return {
    load: {
      connections,
      direct,
      gateway,
      rps_ratio: round(rpsRatio),
      rps_ratio_per_round: perRound,
      added_p50_ms: round(addedLoaded),
      added_p99_ms: round(gateway.p99_ms - direct.p99_ms),
      ...(sessionful ? { sessionful } : {}),
      ...(compared.length > 0 ? { compared } : {}),
    },
    latency: { connections: 1, steps, added_p50_ms: round(addedQuiet) },
    targets: [
      { name: `gateway / direct rps (${connections} connections)`, value: round(rpsRatio), target: "≥ 0.8×", met: rpsRatio >= 0.8 },
      { name: "added p50 ms, 1 connection", value: round(addedQuiet), target: "≤ 2 ms", met: addedQuiet <= 2 },
      { name: `added p50 ms, ${connections} connections`, value: round(addedLoaded), target: "≤ 2 ms", met: addedLoaded <= 2 },
    ],
  };
}

export function printGateway(summary: GatewaySummary): void {
  const { load, latency } = summary;
  console.log(`\nGateway: tools/call list_tasks direct (/mcp/tasks) vs <slug>__list_tasks through /mcp, warm singleton source`);
  console.log(
    `  ${load.connections} connections: direct ${load.direct.rps.toFixed(0)} req/s p50 ${load.direct.p50_ms.toFixed(2)} p99 ${load.direct.p99_ms.toFixed(2)} ms; ` +
      `gateway ${load.gateway.rps.toFixed(0)} req/s p50 ${load.gateway.p50_ms.toFixed(2)} p99 ${load.gateway.p99_ms.toFixed(2)} ms; ` +
      `ratio ${load.rps_ratio.toFixed(2)}× (per round ${load.rps_ratio_per_round.map((value) => value.toFixed(2)).join(", ")}), added p50 ${load.added_p50_ms.toFixed(2)} ms`,
  );
  if (load.sessionful) {
    const row = load.sessionful;
    console.log(
      `  sessionful (node-sdk upstream keeping sessions, through its object): ${row.rps.toFixed(0)} req/s p50 ${row.p50_ms.toFixed(2)} p99 ${row.p99_ms.toFixed(2)} ms, errors ${row.errors}`,
    );
  }
  for (const entry of load.compared ?? []) {
    console.log(
      `  ${entry.label} (its gateway and its direct call, same rounds): direct ${entry.direct.rps.toFixed(0)} req/s, gateway ${entry.gateway.rps.toFixed(0)} req/s, ` +
        `ratio ${entry.rps_ratio.toFixed(2)}× (per round ${entry.rps_ratio_per_round.map((value) => value.toFixed(2)).join(", ")}), errors ${entry.direct.errors + entry.gateway.errors}`,
    );
  }
  console.log("  1 connection, step by step (p50 added by each step):");
  for (const step of latency.steps) {
    console.log(
      `    ${step.target.padEnd(18)} ${step.rps.toFixed(0).padStart(5)} req/s  p50 ${step.p50_ms.toFixed(2).padStart(6)} ms  p99 ${step.p99_ms.toFixed(2).padStart(6)} ms  +${step.added_p50_ms.toFixed(2)} ms  errors ${step.errors}`,
    );
  }
  for (const ratio of summary.targets) {
    console.log(`  ${ratio.name.padEnd(40)} ${ratio.value.toFixed(2)}  (target ${ratio.target})  ${ratio.met ? "met" : "NOT met"}`);
  }
}
