/** What the numbers were measured on: they mean little without it. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";

function packageVersion(root: string, name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

export function describeMachine(root: string) {
  const cores = cpus();
  return {
    cpu_model: cores[0]?.model,
    cpu_cores: cores.length,
    memory_gb: Math.round(totalmem() / 1024 ** 3),
    load_average_at_start: loadavg().map((value) => Math.round(value * 100) / 100),
    node: process.version,
    workerd: packageVersion(root, "workerd"),
    miniflare: packageVersion(root, "miniflare"),
    autocannon: packageVersion(root, "autocannon"),
    mcp_server_sdk_v2: packageVersion(root, "@modelcontextprotocol/server"),
    mcp_sdk_v1: packageVersion(root, "@modelcontextprotocol/sdk"),
    agents: packageVersion(root, "agents"),
    zod: packageVersion(root, "zod"),
    note: "load generator (autocannon) and all servers share this machine's cores",
  };
}

/** Which product code was measured: the bench bundles the work tree, committed or not. */
export function describeSource(root: string) {
  const git = (...args: string[]) => {
    try {
      return execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
    } catch {
      return undefined;
    }
  };
  const changed = git("status", "--porcelain", "--", "workers", "d1", "wrangler.toml", "package.json", "package-lock.json");
  // A run from an exported snapshot (`git archive <commit>`, no .git) names its commit itself.
  const snapshot = process.env["BENCH_SOURCE_COMMIT"];
  if (changed === undefined && snapshot) return { commit: snapshot, uncommitted_product_changes: [], snapshot: true };
  return {
    commit: git("rev-parse", "HEAD"),
    uncommitted_product_changes: changed ? changed.split("\n") : [],
  };
}
