/**
 * `npm run bench -- --only oauth`: tools/list and list_tasks on /mcp/tasks with an OAuth access
 * token against the same with an API token, one mcp-edge, cells interleaved in the same rounds.
 * Goal: OAuth ≥ 0.9× the API token's req/s (both are verified once per isolate and cached).
 * Results: bench/results/oauth-<date>.json and oauth-latest.json.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateToken, hashToken } from "../../workers/auth/tokens";
import { bundleWorker } from "./bundle";
import type { Cleanup } from "./cleanup";
import { sendOnce } from "./client";
import type { BenchConfig } from "./config";
import { DIRECT, sampleProblem, type Tool } from "./mcp";
import { oauthAccessToken } from "./oauth-token";
import { cellsOf, runRounds } from "./rounds";
import { median } from "./stats";
import { type FleetPaths, startMcpEdge, type Target } from "./targets";

const TOOLS: readonly Tool[] = ["tools/list", "list_tasks"];

export async function runOAuthRow(paths: FleetPaths, cleanup: Cleanup, config: BenchConfig): Promise<void> {
  const token = generateToken();
  const tokenHash = await hashToken(token);
  const bundle = await bundleWorker(join(paths.root, "workers/index.ts"), join(paths.tmp, "mcp-edge", "index.js"));
  const worker = await startMcpEdge(paths, cleanup, { label: "mcp-edge workerd", bundle, token, tokenHash, seedTasks: config.seedTasks });
  const accessToken = await oauthAccessToken(worker.url, token, "tasks:read", "/mcp/tasks");
  const common = { url: worker.url, route: DIRECT, pid: worker.pid, tools: TOOLS, problems: () => worker.problems };
  const targets: Target[] = [
    { name: "mcp-edge", ...common },
    { name: "mcp-edge oauth", ...common, token: accessToken },
  ];
  for (const target of targets) {
    for (const tool of TOOLS) {
      const sample = await sendOnce(target.url, target.token ?? token, tool, DIRECT);
      const problem = sampleProblem(tool, sample.status, sample.contentType, sample.body);
      if (problem) throw new Error(`${target.name} ${tool}: ${problem}`);
    }
  }
  const rounds = await runRounds(cellsOf(targets), config, token, async () => undefined);
  const rows = TOOLS.map((tool) => {
    const rps = (name: string) =>
      median(rounds.find((cell) => cell.target === name && cell.tool === tool)!.rounds.map((round) => round.rps));
    const api = rps("mcp-edge");
    const oauth = rps("mcp-edge oauth");
    return { tool, api_token_rps: Math.round(api), oauth_rps: Math.round(oauth), ratio: Math.round((oauth / api) * 100) / 100 };
  });
  console.log("\nOAuth access token vs API token (median req/s over rounds; goal ≥ 0.9×)");
  for (const row of rows)
    console.log(
      `${row.tool.padEnd(12)} API token ${String(row.api_token_rps).padStart(6)}  OAuth ${String(row.oauth_rps).padStart(6)}  ${row.ratio.toFixed(2)}×`,
    );
  const result = { date: new Date().toISOString(), config, rows, rounds, worker_problems: worker.problems };
  const dir = join(paths.root, "bench/results");
  writeFileSync(join(dir, `oauth-${result.date.slice(0, 10)}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(dir, "oauth-latest.json"), `${JSON.stringify(result, null, 2)}\n`);
}
