/**
 * The load phase: every (target, tool) cell gets a fixed-duration autocannon run per round, cells
 * interleaved round-robin, and the starting cell rotated each round, so slow drift and background
 * noise (thermal, other processes, the queue consumer) spread over all targets instead of piling
 * onto whichever ran last.
 */
import { cpus } from "node:os";
import type { BenchConfig } from "./config";
import { type LoadSample, runLoad } from "./load";
import type { Tool } from "./mcp";
import { cpuTimeMs, machineBusyMs } from "./proc";
import type { Target, TargetName } from "./targets";

export interface RoundSample extends LoadSample {
  /**
   * Share of the machine's CPU (all cores) used during the run by processes other than the target
   * server and the bench itself: other work on the machine, i.e. noise. Undefined off Linux.
   */
  foreign_cpu_share: number | undefined;
  /**
   * The target server's CPU per answered request under this round's concurrency (its process CPU
   * from /proc over the round / responses): less sensitive to other load than req/s, and it shows
   * work that only appears under concurrency (GC, queue consumers, what runs beside the handler).
   */
  server_cpu_ms_per_response: number | undefined;
}

export interface Cell {
  target: Target;
  tool: Tool;
}

export interface CellSamples {
  target: TargetName;
  tool: Tool;
  rounds: RoundSample[];
}

export function cellsOf(targets: readonly Target[]): Cell[] {
  return targets.flatMap((target) => target.tools.map((tool) => ({ target, tool })));
}

function label(cell: Cell): string {
  return `${cell.target.name} ${cell.tool}`;
}

/** A load run with CPU accounting around it, to tell how much else was running on the machine. */
async function measuredLoad(cell: Cell, config: BenchConfig, token: string, seconds: number): Promise<RoundSample> {
  const machineBefore = machineBusyMs();
  const serverBefore = cell.target.pid === undefined ? undefined : cpuTimeMs(cell.target.pid);
  const benchBefore = process.cpuUsage();
  const started = performance.now();
  const sample = await runLoad({
    url: cell.target.url,
    route: cell.target.route,
    token,
    tool: cell.tool,
    connections: config.connections,
    seconds,
  });
  const elapsed = performance.now() - started;
  const machineAfter = machineBusyMs();
  const serverAfter = cell.target.pid === undefined ? undefined : cpuTimeMs(cell.target.pid);
  const bench = process.cpuUsage(benchBefore);
  if (machineBefore === undefined || machineAfter === undefined || serverBefore === undefined || serverAfter === undefined) {
    return { ...sample, foreign_cpu_share: undefined, server_cpu_ms_per_response: undefined };
  }
  const ours = serverAfter - serverBefore + (bench.user + bench.system) / 1000;
  const foreign = Math.max(0, machineAfter - machineBefore - ours);
  const responses = sample.responses;
  return {
    ...sample,
    foreign_cpu_share: Math.round((foreign / (elapsed * cpus().length)) * 1000) / 1000,
    server_cpu_ms_per_response: responses === 0 ? undefined : Math.round(((serverAfter - serverBefore) / responses) * 100) / 100,
  };
}

export async function runRounds(
  cells: readonly Cell[],
  config: BenchConfig,
  token: string,
  afterCell: (cell: Cell) => Promise<void>,
): Promise<CellSamples[]> {
  const results: CellSamples[] = cells.map((cell) => ({ target: cell.target.name, tool: cell.tool, rounds: [] }));
  if (config.warmupSeconds > 0) {
    console.log(`warm-up: ${config.warmupSeconds} s per cell, not recorded`);
    for (const cell of cells) {
      await runLoad({
        url: cell.target.url,
        route: cell.target.route,
        token: cell.target.token ?? token,
        tool: cell.tool,
        connections: config.connections,
        seconds: config.warmupSeconds,
      });
      await afterCell(cell);
    }
  }
  for (let round = 0; round < config.rounds; round++) {
    for (let step = 0; step < cells.length; step++) {
      const index = (step + round) % cells.length;
      const cell = cells[index]!;
      const sample = await measuredLoad(cell, config, cell.target.token ?? token, config.roundSeconds);
      results[index]!.rounds.push(sample);
      console.log(
        `round ${round + 1}/${config.rounds}  ${label(cell).padEnd(28)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50_ms.toFixed(2)} ms  p99 ${sample.p99_ms.toFixed(2)} ms  errors ${sample.errors}${sample.server_cpu_ms_per_response === undefined ? "" : `  cpu ${sample.server_cpu_ms_per_response.toFixed(2)} ms/req`}${sample.foreign_cpu_share === undefined ? "" : `  other load ${(sample.foreign_cpu_share * 100).toFixed(0)} %`}`,
      );
      await afterCell(cell);
    }
  }
  return results;
}
