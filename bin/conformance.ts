/**
 * npm run conformance: the MCP conformance suite (@modelcontextprotocol/conformance, server mode)
 * against this repository's Workers, run locally.
 *
 * - Every real server (`mcpServerEntries` in workers/mcp-servers.ts, so new ones are picked up) and the
 *   gateway `/mcp` must pass the generic scenarios, served by the real Worker (wrangler.toml).
 * - The full suite (active and pending scenarios) runs against the conformance fixture
 *   (test/conformance/): the same app and hosting layer serving the scenarios' tools, resources
 *   and prompts.
 *
 * Both Workers run under `wrangler dev` on free loopback ports with local D1 under
 * .wrangler/conformance/; each gets a fresh token, added to requests by a loopback auth proxy
 * (bin/conformance/auth-proxy.ts explains why). Results land in test/artifacts/conformance/.
 * Exits non-zero on any failure the expected-failures baseline does not list, or a stale entry.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { conformanceServer } from "../test/conformance/fixture.server";
import { mcpServerEntries } from "../workers/mcp-servers";
import { type AuthProxy, startAuthProxy } from "./conformance/auth-proxy";
import { type LocalWorker, ROOT, startLocalWorker, stopAllWorkers } from "./conformance/local-worker";
import { GENERIC_SCENARIOS, readResults, runSuite, SUITE_VERSION, type ScenarioResult } from "./conformance/suite";

const RESULTS_DIR = join(ROOT, "test", "artifacts", "conformance");

interface Run {
  path: string;
  what: string;
  exitCode: number;
  results: ScenarioResult[];
}

const running: (LocalWorker | AuthProxy)[] = [];

async function cleanUp(): Promise<void> {
  const stoppers = running.splice(0).map((item) => ("stop" in item ? item.stop() : item.close()));
  await Promise.allSettled([...stoppers, stopAllWorkers()]);
}

async function startWorker(label: string, config: string): Promise<{ worker: LocalWorker; proxy: AuthProxy }> {
  const worker = await startLocalWorker({ label, config, logDir: RESULTS_DIR });
  running.push(worker);
  const proxy = await startAuthProxy(worker.origin, worker.token);
  running.push(proxy);
  return { worker, proxy };
}

async function runGeneric(proxy: AuthProxy, path: string, name: string): Promise<Run> {
  const outputDir = join(RESULTS_DIR, name);
  let exitCode = 0;
  for (const scenario of GENERIC_SCENARIOS) {
    exitCode = Math.max(exitCode, await runSuite(`${proxy.origin}${path}`, outputDir, { scenario }));
  }
  return { path, what: "generic scenarios, real Worker", exitCode, results: readResults(outputDir) };
}

async function runFixture(proxy: AuthProxy, name: string): Promise<Run> {
  const path = `/mcp/${name}`;
  const outputDir = join(RESULTS_DIR, name);
  const exitCode = await runSuite(`${proxy.origin}${path}`, outputDir, { suite: "all" });
  return { path, what: "full suite (active + pending), conformance fixture", exitCode, results: readResults(outputDir) };
}

function printSummary(runs: readonly Run[]): void {
  console.log(
    `\n=== mcp-edge conformance: @modelcontextprotocol/conformance ${SUITE_VERSION}, ${new Date().toISOString().slice(0, 10)} ===`,
  );
  for (const run of runs) {
    const total = (key: "passed" | "failed" | "warnings") => run.results.reduce((sum, result) => sum + result[key], 0);
    const count = (test: (result: ScenarioResult) => boolean) => run.results.filter(test).length;
    const verdict = run.exitCode === 0 ? "baseline check passed" : "UNEXPECTED FAILURES or stale baseline entries";
    console.log(`\n${run.path} (${run.what}): ${verdict}`);
    for (const result of run.results) {
      const warnings = result.warnings > 0 ? `, ${result.warnings} warning(s)` : "";
      console.log(`  ${result.failed === 0 ? "✓" : "✗"} ${result.scenario}: ${result.passed} passed, ${result.failed} failed${warnings}`);
    }
    const scenarios = `${count((r) => r.failed === 0 && r.warnings === 0)} clean, ${count((r) => r.failed === 0 && r.warnings > 0)} warnings only, ${count((r) => r.failed > 0)} failed`;
    console.log(`  scenarios: ${scenarios}; checks: ${total("passed")} passed, ${total("failed")} failed, ${total("warnings")} warnings`);
  }
}

async function main(): Promise<number> {
  rmSync(RESULTS_DIR, { recursive: true, force: true });
  const app = await startWorker("app", "wrangler.toml");
  const fixture = await startWorker("fixture", "test/conformance/wrangler.toml");
  const runs: Run[] = [];
  for (const server of mcpServerEntries) runs.push(await runGeneric(app.proxy, `/mcp/${server.name}`, server.name));
  // The gateway serves every built-in tool plus the user's sources (none here) and its admin tools.
  runs.push(await runGeneric(app.proxy, "/mcp", "gateway"));
  runs.push(await runFixture(fixture.proxy, conformanceServer.name));
  printSummary(runs);
  return runs.some((run) => run.exitCode !== 0) ? 1 : 0;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

main()
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    await cleanUp();
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
