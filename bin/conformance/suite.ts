/**
 * Runs the @modelcontextprotocol/conformance CLI (server mode) and reads back the checks it saved.
 * The CLI itself prints every check, its own summary and its expected-failures verdict; its exit
 * code is that verdict (unexpected failures or stale baseline entries fail it).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./local-worker";

const PACKAGE_DIR = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance");
export const SUITE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string }).version;
export const EXPECTED_FAILURES = "test/conformance/expected-failures.yml";

/** Scenarios that need no scenario-specific tools, resources or prompts: every real server must pass them. */
export const GENERIC_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "dns-rebinding-protection",
  "logging-set-level",
  "server-sse-multiple-streams",
] as const;

/** What to run: one scenario, or a whole suite ("all" = the active scenarios plus the pending ones). */
export type Selection = { scenario: string } | { suite: "active" | "all" };

/** Runs the CLI against `url`; resolves with its exit code (its expected-failures verdict). */
export function runSuite(url: string, outputDir: string, selection: Selection): Promise<number> {
  const args = ["server", "--url", url, "--expected-failures", EXPECTED_FAILURES, "--output-dir", outputDir];
  args.push(...("scenario" in selection ? ["--scenario", selection.scenario] : ["--suite", selection.suite]));
  // The same Node that runs this script (>= 24 from node_modules), not whatever `node` is on PATH.
  const child = spawn(process.execPath, [join(PACKAGE_DIR, "dist", "index.js"), ...args], { cwd: ROOT, stdio: "inherit" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

export interface ScenarioResult {
  scenario: string;
  passed: number;
  failed: number;
  warnings: number;
}

interface Check {
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
}

/** The CLI saves each scenario's checks as <outputDir>/server-<scenario>-<ISO timestamp>/checks.json. */
export function readResults(outputDir: string): ScenarioResult[] {
  if (!existsSync(outputDir)) return [];
  return readdirSync(outputDir)
    .map((entry) => ({ entry, match: /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry) }))
    .filter(({ match }) => match !== null)
    .sort((a, b) => a.entry.slice(a.match![1]!.length + 8).localeCompare(b.entry.slice(b.match![1]!.length + 8)))
    .map(({ entry, match }) => {
      const checks = JSON.parse(readFileSync(join(outputDir, entry, "checks.json"), "utf8")) as Check[];
      const count = (status: Check["status"]) => checks.filter((check) => check.status === status).length;
      return { scenario: match![1]!, passed: count("SUCCESS"), failed: count("FAILURE"), warnings: count("WARNING") };
    });
}
