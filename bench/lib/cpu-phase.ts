/**
 * The CPU phase, after the load phase: per-request server CPU of every (target, tool) cell, plus
 * mcp-edge with the token cache off (TOKEN_CACHE_SECONDS=0), which isolates what the auth lookup
 * costs when it is not cached. Each cell is measured in several interleaved passes and the median
 * is kept: single passes moved by ±30 % on this shared machine.
 */
import type { Cleanup } from "./cleanup";
import { type CpuMeasurement, measureCpu } from "./cpu";
import type { Route, Tool } from "./mcp";
import type { Cell } from "./rounds";
import { waitForOutboxDrain } from "./settle";
import { median, round } from "./stats";
import { type FleetPaths, startMcpEdge } from "./targets";
import type { ServedWorker } from "./workerd";

const PASSES = 3;
const DRAIN_TIMEOUT_MS = 60_000;

export interface CpuSummary extends CpuMeasurement {
  passes: number;
  cpu_ms_range: [number, number];
}

interface Job {
  target: string;
  tool: Tool;
  url: URL;
  route?: Route;
  pid: number | undefined;
  settle?: () => Promise<void>;
}

function drainer(worker: ServedWorker): () => Promise<void> {
  return async () => {
    const drain = await waitForOutboxDrain(worker, DRAIN_TIMEOUT_MS);
    if (!drain.drained) console.warn(`outbox not drained after ${drain.waitedMs} ms (${drain.pending} pending)`);
  };
}

async function measureJobs(jobs: readonly Job[], token: string, requests: number): Promise<CpuSummary[]> {
  const runs: CpuMeasurement[][] = jobs.map(() => []);
  for (let pass = 0; pass < PASSES; pass++) {
    for (const [index, job] of jobs.entries()) {
      const measurement = await measureCpu({ ...job, token, requests });
      if (measurement) runs[index]!.push(measurement);
    }
  }
  return jobs.flatMap((job, index) => {
    const passes = runs[index]!;
    if (passes.length === 0) return [];
    const cpu = passes.map((measurement) => measurement.cpu_ms_per_request);
    const summary: CpuSummary = {
      target: job.target,
      tool: job.tool,
      requests,
      passes: passes.length,
      cpu_ms_per_request: round(median(cpu)),
      cpu_ms_range: [round(Math.min(...cpu)), round(Math.max(...cpu))],
      wall_ms_per_request: round(median(passes.map((measurement) => measurement.wall_ms_per_request))),
    };
    console.log(
      `cpu  ${`${summary.target} ${summary.tool}`.padEnd(46)} ${summary.cpu_ms_per_request.toFixed(2)} ms CPU/req (${summary.cpu_ms_range.join("–")})`,
    );
    return [summary];
  });
}

export async function runCpuPhase(
  paths: FleetPaths,
  cleanup: Cleanup,
  input: {
    cells: readonly Cell[];
    mcpEdge: ServedWorker;
    bundle: string;
    token: string;
    tokenHash: string;
    seedTasks: number;
    requests: number;
    /** Skip the second mcp-edge with the token cache off (`--only gateway`). */
    skipUncached?: boolean;
  },
): Promise<CpuSummary[]> {
  const fleetJobs: Job[] = input.cells.map(({ target, tool }) => ({
    target: target.name,
    tool,
    url: target.url,
    route: target.route,
    pid: target.pid,
    // add_task's queue consumer work happens after the responses: wait for it so it is counted.
    ...(target.outbox && tool === "add_task" ? { settle: drainer(target.outbox) } : {}),
  }));
  const measured = await measureJobs(fleetJobs, input.token, input.requests);
  if (input.skipUncached) return measured;

  const uncached = await startMcpEdge(paths, cleanup, {
    label: "mcp-edge (no token cache) workerd",
    bundle: input.bundle,
    token: input.token,
    tokenHash: input.tokenHash,
    seedTasks: input.seedTasks,
    vars: { TOKEN_CACHE_SECONDS: "0" },
  });
  try {
    const target = "mcp-edge (TOKEN_CACHE_SECONDS=0)";
    const jobs: Job[] = (["tools/list", "list_tasks"] as const).map((tool) => ({ target, tool, url: uncached.url, pid: uncached.pid }));
    measured.push(...(await measureJobs(jobs, input.token, input.requests)));
  } finally {
    await uncached.dispose();
  }
  return measured;
}
