/**
 * `npm run bench`: mcp-edge against its peers (node-sdk, d1-floor, ceiling) under identical load.
 *
 *   1. measure the deployable bundle (wrangler deploy --dry-run)
 *   2. start and seed every target, check one real result per (target, tool)
 *   3. load phase: alternating fixed-duration autocannon rounds → table + issue ratios; then the
 *      gateway latency ladder at 1 connection (direct → SDK path → /mcp built-in → /mcp source)
 *   4. CPU phase: server CPU per request from /proc; mcp-edge with the token cache off
 *   5. profile phase: V8 CPU profile of mcp-edge inside workerd, per tool
 *   6. Node micro-benchmark of the MCP layer alone
 * Results go to bench/results/<date>.json, latest.json (the table) and *-extra.json (the rest).
 * `--only gateway` runs the gateway rows alone (mcp-edge only) into bench/results/gateway-*.json.
 * `--only oauth` runs the OAuth-token row alone (bench/lib/oauth-row.ts) into bench/results/oauth-*.json.
 * `--only tasks` runs list_tasks and add_task against the D1 floor alone (bench/lib/tasks-row.ts).
 * `--only startup` runs the startup and bundle section alone (bench/lib/startup.ts).
 * `--compare <ref>[,<ref>…]` serves those commits beside the work tree as `mcp-edge@<commit>` (with
 * `--only gateway`, also `gateway@<commit>`, and each commit's gateway ratio is reported beside the work tree's).
 * Everything runs on 127.0.0.1 from a temp dir that is deleted at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { measureDeployBundle } from "./lib/bundle";
import { Cleanup } from "./lib/cleanup";
import { readConfig } from "./lib/config";
import { runCpuPhase } from "./lib/cpu-phase";
import { describeMachine, describeSource } from "./lib/machine";
import { printMicro, tryMicroBenchmark } from "./lib/micro";
import { runOAuthRow } from "./lib/oauth-row";
import { profileMcpEdge } from "./lib/profile";
import {
  aggregate,
  ceilingShares,
  gatewaySummary,
  printCpu,
  printGateway,
  printProfile,
  printRatios,
  printTable,
  ratios,
  writeResults,
} from "./lib/report";
import { startComparedCommits } from "./lib/compare";
import { TOOLS } from "./lib/mcp";
import { cellsOf, runRounds } from "./lib/rounds";
import { outboxDrains, runTasksRows } from "./lib/tasks-row";
import { measureStartup, printStartup, type StartupRow, startupVariants } from "./lib/startup";
import { startFleet } from "./lib/targets";

const root = resolve(import.meta.dirname, "..");
const config = readConfig();
/** Runs last, also on Ctrl-C: every phase's servers, then the temp dir. */
const final = new Cleanup();
final.onSignals();
const tmp = mkdtempSync(join(tmpdir(), "mcp-edge-bench-"));
const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
final.add("temp dir", removeTmp);
// Miniflare's own exit hook ends the process on SIGINT before async cleanup can finish (it stops
// its workerd itself; the node peer exits when its stdin closes). The temp dir goes synchronously.
process.once("exit", removeTmp);
const paths = { root, tmp };

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = describeMachine(root);
  // Captured before bundling: the work tree is what gets measured, and it may change during a run.
  const source = describeSource(root);
  console.log(
    `mcp-edge bench: ${config.rounds} rounds × ${config.roundSeconds} s, ${config.connections} connections, ${machine.cpu_cores} cores`,
  );
  const [load] = machine.load_average_at_start;
  if (load !== undefined && load > machine.cpu_cores / 2) {
    console.warn(`warning: load average ${load} before starting: other work on this machine will add noise (see "other load" per round)`);
  }

  if (config.only === "oauth") {
    await runOAuthRow(paths, phaseCleanup(), config);
    return;
  }
  if (config.only === "tasks") {
    await runTasksRows(paths, phaseCleanup, config, { config, machine, source });
    return;
  }
  if (config.only === "startup") {
    const startup = await startupSection();
    printStartup(startup);
    const date = startedAt.toISOString().slice(0, 10);
    const written = writeResults(
      join(root, "bench/results"),
      date,
      startup,
      { date: startedAt.toISOString(), config, machine, source },
      "startup-",
    );
    console.log(`\nwrote ${written.map((path) => path.slice(root.length + 1)).join(", ")}`);
    return;
  }
  const gatewayOnly = config.only === "gateway";
  let bundle: Awaited<ReturnType<typeof measureDeployBundle>> | undefined;
  if (!gatewayOnly) {
    console.log("bundle: wrangler deploy --dry-run …");
    bundle = await measureDeployBundle(root, join(tmp, "wrangler-dry-run"));
    console.log(`bundle: ${bundle.totalBytes} bytes, ${bundle.totalGzipBytes} gzip (${bundle.modules.length} module(s))`);
  }
  // Before any server starts: startup profiles are short and the quieter the machine the better.
  const startup = gatewayOnly ? undefined : await startupSection();

  const servers = phaseCleanup();
  const fleet = await startFleet(paths, servers, config.seedTasks, gatewayOnly ? "gateway" : "all");
  for (const sample of fleet.samples)
    console.log(`sample ok: ${sample.target.padEnd(8)} ${sample.tool.padEnd(10)} ${sample.contentType} ${sample.bytes} bytes`);
  const compared = await startComparedCommits(paths, servers, config.compare, {
    token: fleet.token,
    tokenHash: fleet.tokenHash,
    seedTasks: config.seedTasks,
    tools: gatewayOnly ? ["list_tasks"] : TOOLS,
    gateway: gatewayOnly && fleet.upstream ? { upstream: fleet.upstream.url } : undefined,
  });

  const cells = cellsOf([
    ...fleet.targets,
    ...compared.flatMap((entry) => (entry.gateway ? [entry.target, entry.gateway] : [entry.target])),
  ]);
  const { afterCell, drains } = outboxDrains();
  const samples = await runRounds(cells, config, fleet.token, afterCell);
  const rows = aggregate(samples);

  // Latency without queueing: one connection, the four steps from direct to gateway alternating.
  const ladderConfig = { ...config, connections: 1, warmupSeconds: 1, roundSeconds: Math.ceil(config.roundSeconds / 2) };
  console.log(`\ngateway latency ladder: ${ladderConfig.rounds} rounds × ${ladderConfig.roundSeconds} s, 1 connection`);
  const ladderCells = cellsOf(fleet.gatewayLadder);
  const ladderSamples = await runRounds(ladderCells, ladderConfig, fleet.token, async () => undefined);
  const gateway = gatewaySummary(rows, samples, config.connections, aggregate(ladderSamples));

  console.log("\nCPU phase: sequential requests, server CPU time from /proc");
  // The ladder's two middle steps get a CPU figure too: it splits the gateway's extra CPU.
  const cpuCells = [
    ...cells,
    ...ladderCells.filter((cell) => cell.target.name === "mcp-edge sdk-path" || cell.target.name === "gateway built-in"),
  ];
  const cpu = await runCpuPhase(paths, servers, {
    cells: cpuCells,
    skipUncached: gatewayOnly,
    mcpEdge: fleet.mcpEdge,
    bundle: fleet.mcpEdgeBundle,
    token: fleet.token,
    tokenHash: fleet.tokenHash,
    seedTasks: config.seedTasks,
    requests: config.cpuRequests,
  });
  const problems = Object.fromEntries(fleet.targets.map((target) => [target.name, target.problems()]));
  // The profile phase runs alone: no idle workerd or node peer next to it.
  await servers.disposeAll();

  let profile: Awaited<ReturnType<typeof profileMcpEdge>> | undefined;
  let profileError: string | undefined;
  if (!config.skipProfile) {
    console.log("\nprofile phase: V8 CPU profile of mcp-edge in workerd");
    const profiled = phaseCleanup();
    try {
      profile = await profileMcpEdge(paths, profiled, {
        bundle: fleet.mcpEdgeBundle,
        token: fleet.token,
        tokenHash: fleet.tokenHash,
        seedTasks: config.seedTasks,
        requests: config.cpuRequests,
        tools: gatewayOnly ? ["list_tasks"] : ["tools/list", "list_tasks", "add_task"],
        gateway: true,
      });
    } catch (error) {
      // The inspector is the most fragile part; losing it must not lose the load results.
      profileError = String(error);
      console.warn(`profile phase failed: ${profileError}`);
    } finally {
      await profiled.disposeAll();
    }
  }
  let micro: Awaited<ReturnType<typeof tryMicroBenchmark>> | undefined;
  if (!gatewayOnly) {
    console.log("micro-benchmark: the MCP layer in Node …");
    micro = await tryMicroBenchmark(root);
  }

  if (bundle)
    console.log(
      `\nbundle (wrangler deploy --dry-run): ${bundle.totalBytes} bytes raw, ${bundle.totalGzipBytes} gzip; wrangler says "${bundle.wranglerSummary ?? "?"}"`,
    );
  if (startup) printStartup(startup);
  if (micro && "result" in micro) printMicro(micro.result);
  else if (micro) console.warn(`\nmicro-benchmark failed: ${micro.error.split("\n")[0]}`);
  printCpu(cpu);
  if (profile) printProfile(profile);
  printTable(rows, samples);
  const goals = ratios(rows);
  printRatios(goals);
  printGateway(gateway);
  const date = startedAt.toISOString().slice(0, 10);
  const extra = {
    date: startedAt.toISOString(),
    config,
    machine,
    source,
    statistic: "rps, p50_ms, p99_ms: median over rounds of each round's value; errors: sum over rounds",
    ratios: goals,
    compared: compared.map(({ ref, commit, target }) => ({ ref, commit, target: target.name })),
    gateway,
    gateway_ladder_rounds: ladderSamples,
    ceiling_shares: ceilingShares(rows),
    samples: fleet.samples,
    rounds: samples,
    outbox_drains: drains,
    bundle: bundle ?? "skipped (--only gateway)",
    startup: startup ?? "skipped (--only gateway)",
    cpu_per_request: cpu,
    profile: profile ?? { error: profileError ?? "skipped (--skip-profile)" },
    micro: micro ?? "skipped (--only gateway)",
    worker_problems: problems,
  };
  const written = writeResults(join(root, "bench/results"), date, rows, extra, gatewayOnly ? "gateway-" : "");
  console.log(`\nwrote ${written.map((path) => path.slice(root.length + 1)).join(", ")}`);
}

/** Startup and bundle of mcp-edge beside the template peer, each `wrangler check startup`-ed `startupReps` times. */
async function startupSection(): Promise<StartupRow[]> {
  console.log(`startup: building the variants, then wrangler check startup × ${config.startupReps} each, alternating …`);
  return measureStartup(root, tmp, await startupVariants(root, tmp), config.startupReps);
}

/** Servers of one phase: stopped when the phase ends, or by `final` if it never does. */
function phaseCleanup(): Cleanup {
  const phase = new Cleanup();
  final.add("phase servers", () => phase.disposeAll());
  return phase;
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await final.disposeAll();
}
