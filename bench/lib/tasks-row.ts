/**
 * `npm run bench -- --only tasks [--compare <ref>,…]`: the two tasks rows alone — list_tasks and
 * add_task on mcp-edge (and on each compared commit) against the D1 floor, in the same alternating
 * rounds, then their CPU per request. The quick loop for finding where throughput went: each
 * compared commit is one more `mcp-edge@<commit>` target in the same run. Results:
 * bench/results/tasks-<date>.json, tasks-latest.json and their -extra files.
 */
import { join } from "node:path";
import type { Cleanup } from "./cleanup";
import { startComparedCommits } from "./compare";
import type { BenchConfig } from "./config";
import { runCpuPhase } from "./cpu-phase";
import { profileMcpEdge } from "./profile";
import type { ProfileSummary } from "./profile-report";
import { aggregate, printCpu, printProfile, printRatios, printTable, ratios, writeResults } from "./report";
import { type Cell, cellsOf, runRounds } from "./rounds";
import { type Drain, waitForOutboxDrain } from "./settle";
import { type Fleet, type FleetPaths, startFleet, type Target } from "./targets";

/** Waits, after every add_task cell, for that Worker's queue consumer to drain its outbox. */
export function outboxDrains(): { afterCell: (cell: Cell) => Promise<void>; drains: (Drain & { after: string })[] } {
  const drains: (Drain & { after: string })[] = [];
  return {
    drains,
    afterCell: async (cell) => {
      if (cell.tool !== "add_task" || !cell.target.outbox) return;
      drains.push({ after: `${cell.target.name} add_task`, ...(await waitForOutboxDrain(cell.target.outbox, 60_000)) });
    },
  };
}

/**
 * `phase` makes the cleanup of one phase's servers: the load and CPU phases share one, and the
 * profile phase (skipped by --skip-profile) runs after they are stopped, with no idle workerd beside it.
 */
export async function runTasksRows(
  paths: FleetPaths,
  phase: () => Cleanup,
  config: BenchConfig,
  describe: Record<string, unknown>,
): Promise<void> {
  const cleanup = phase();
  const fleet = await startFleet(paths, cleanup, config.seedTasks, "tasks");
  const compared = await startComparedCommits(paths, cleanup, config.compare, {
    token: fleet.token,
    tokenHash: fleet.tokenHash,
    seedTasks: config.seedTasks,
    tools: ["list_tasks", "add_task"],
  });
  const targets: Target[] = [...fleet.targets, ...compared.map((entry) => entry.target)];
  const cells = cellsOf(targets);
  const { afterCell, drains } = outboxDrains();
  const samples = await runRounds(cells, config, fleet.token, afterCell);
  const rows = aggregate(samples);

  console.log("\nCPU phase: sequential requests, server CPU time from /proc");
  const cpu = await runCpuPhase(paths, cleanup, {
    cells,
    skipUncached: true,
    mcpEdge: fleet.mcpEdge,
    bundle: fleet.mcpEdgeBundle,
    token: fleet.token,
    tokenHash: fleet.tokenHash,
    seedTasks: config.seedTasks,
    requests: config.cpuRequests,
  });
  await cleanup.disposeAll();
  const profile = config.skipProfile ? undefined : await profileTasks(paths, phase(), config, fleet);
  printCpu(cpu);
  if (profile) printProfile(profile);
  printTable(rows, samples);
  const goals = ratios(rows);
  printRatios(goals);
  const date = new Date().toISOString();
  const extra = {
    ...describe,
    date,
    statistic: "rps, p50_ms, p99_ms: median over rounds of each round's value; errors: sum over rounds",
    compared: compared.map(({ ref, commit, target }) => ({ ref, commit, target: target.name })),
    ratios: goals,
    rounds: samples,
    outbox_drains: drains,
    cpu_per_request: cpu,
    profile: profile ?? "skipped (--skip-profile)",
    worker_problems: Object.fromEntries(targets.map((target) => [target.name, target.problems()])),
  };
  const written = writeResults(join(paths.root, "bench/results"), date.slice(0, 10), rows, extra, "tasks-");
  console.log(`\nwrote ${written.map((path) => path.slice(paths.root.length + 1)).join(", ")}`);
}

/** The work tree's V8 profile per tool; the raw profiles are kept in bench/results/profiles/ (not committed). */
async function profileTasks(
  paths: FleetPaths,
  cleanup: Cleanup,
  config: BenchConfig,
  fleet: Fleet,
): Promise<Record<string, ProfileSummary> | undefined> {
  console.log("\nprofile phase: V8 CPU profile of mcp-edge in workerd");
  try {
    return await profileMcpEdge(paths, cleanup, {
      bundle: fleet.mcpEdgeBundle,
      token: fleet.token,
      tokenHash: fleet.tokenHash,
      seedTasks: config.seedTasks,
      requests: config.cpuRequests,
      tools: ["list_tasks", "add_task"],
      saveTo: join(paths.root, "bench/results/profiles"),
    });
  } catch (error) {
    // The inspector is the most fragile part; losing it must not lose the load results.
    console.warn(`profile phase failed: ${String(error)}`);
    return undefined;
  } finally {
    await cleanup.disposeAll();
  }
}
