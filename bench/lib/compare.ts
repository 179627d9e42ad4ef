/**
 * `--compare <ref>[,<ref>…]`: other commits of mcp-edge served beside the work tree in the same
 * alternating rounds, for a before/after in one run — and for bisecting a regression with the
 * bench. Each ref is exported with `git archive` into the temp dir and bundled against this
 * checkout's node_modules, so every target runs the same library versions and only our code
 * differs. It starts with its own wrangler.toml, its own migrations and the same seed as mcp-edge.
 * Like mcp-edge, a commit is served without Miniflare's asset router in front (workerd.ts);
 * `<ref>+assets` serves it with the router, to measure what that router costs each request.
 * `<ref>+limiter-in-isolate` serves it with its per-user Rate Limiting bindings answered in its own
 * isolate instead of by Miniflare's emulation (bench/peers/in-isolate-limiter.ts): beside `<ref>`,
 * that shows what the emulation adds to each call. Neither is ever a headline row.
 * With `--only gateway`, each commit also registers the work tree's upstream workerd's /mcp/tasks as
 * a source, as the work tree does (bench/lib/gateway.ts), and is served as `mcp-edge@<commit>` and
 * `gateway@<commit>`: the gateway ratio of two commits, side by side in the same rounds, against
 * the same upstream.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../bin/lib/ports";
import { bundleWorker } from "./bundle";
import type { Cleanup } from "./cleanup";
import { gatewayRoute, gatewayVars, registerTasksSource } from "./gateway";
import type { Tool } from "./mcp";
import { checkedSample, type FleetPaths, seedD1, type Target, workerTarget } from "./targets";
import { hasPerUserLimiters, withBenchRateLimits } from "./rate-limits";
import { serveWorker, wranglerWorkerOptions } from "./workerd";

export interface ComparedCommit {
  ref: string;
  commit: string;
  target: Target;
  /** `gateway@<commit>`: its gateway's list_tasks through the upstream workerd's /mcp/tasks (`--only gateway`). */
  gateway?: Target;
}

function git(root: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }).trim();
}

/** The ref's tree, exported into `dir`, with this checkout's packages beside it. */
function exportCommit(root: string, commit: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
}

const VARIANTS: readonly string[] = ["assets", "limiter-in-isolate"];

/**
 * An entry beside the exported commit: its Worker (Durable Object classes included), with every
 * request's env carrying the in-isolate limiters (bench/peers/in-isolate-limiter.ts).
 */
function inIsolateLimiterEntry(root: string, source: string): string {
  const entry = join(source, "bench-limiter-in-isolate.entry.ts");
  const standIn = JSON.stringify(join(root, "bench/peers/in-isolate-limiter.ts"));
  writeFileSync(
    entry,
    [
      `import worker from "./workers/index";`,
      `import { withInIsolateLimiters } from ${standIn};`,
      `export * from "./workers/index";`,
      `export default { ...worker, fetch: (request, env, ctx) => worker.fetch(request, withInIsolateLimiters(env), ctx) };`,
      "",
    ].join("\n"),
  );
  return entry;
}

export async function startComparedCommits(
  paths: FleetPaths,
  cleanup: Cleanup,
  refs: readonly string[],
  input: { token: string; tokenHash: string; seedTasks: number; tools: readonly Tool[]; gateway?: { upstream: URL } | undefined },
): Promise<ComparedCommit[]> {
  const compared: ComparedCommit[] = [];
  for (const ref of refs) {
    const [gitRef = ref, variant] = ref.split("+");
    if (variant !== undefined && !VARIANTS.includes(variant))
      throw new Error(`--compare ${ref}: the variants are ${VARIANTS.map((name) => `"+${name}"`).join(", ")}`);
    const commit = git(paths.root, "rev-parse", "--verify", `${gitRef}^{commit}`);
    const short = commit.slice(0, 7);
    const label = variant === undefined ? short : `${short}+${variant}`;
    const source = join(paths.tmp, `source-${label}`);
    exportCommit(paths.root, commit, source);
    const entry = variant === "limiter-in-isolate" ? inIsolateLimiterEntry(paths.root, source) : join(source, "workers/index.ts");
    const bundle = await bundleWorker(entry, join(paths.tmp, `mcp-edge-${label}`, "index.js"));
    const port = await freePort();
    const shipped = wranglerWorkerOptions(join(source, "wrangler.toml"), gatewayVars(port), variant === "assets");
    // Raised like the work tree's (rate-limits.ts): at the shipped limits most of the load would be
    // refusals. Commits from before the per-user limiters have none to raise.
    const options = hasPerUserLimiters(shipped) ? withBenchRateLimits(shipped) : shipped;
    // The Worker keeps its own name: wrangler.toml's bindings to itself and Durable Objects refer
    // to "mcp-edge" (each Worker has its own workerd, so the names do not clash).
    const worker = await serveWorker({
      name: "mcp-edge",
      scriptPath: bundle,
      options,
      port,
    });
    cleanup.add(`mcp-edge@${label} workerd`, () => worker.dispose());
    await seedD1(worker, source, input.tokenHash, input.seedTasks);
    const target: Target = { ...workerTarget(`mcp-edge@${label}`, worker, input.tools), outbox: worker };
    for (const tool of input.tools) await checkedSample(target.name, target.url, input.token, tool);
    let gateway: Target | undefined;
    if (input.gateway) {
      const prefix = await registerTasksSource(worker.url, input.token, input.gateway.upstream);
      gateway = workerTarget(`gateway@${label}`, worker, ["list_tasks"], gatewayRoute(prefix));
      await checkedSample(gateway.name, gateway.url, input.token, "list_tasks", gateway.route);
    }
    console.log(`compare: ${ref} = ${label} ("${git(paths.root, "log", "-1", "--format=%s", commit).slice(0, 70)}") on ${worker.url}`);
    compared.push({ ref, commit, target, ...(gateway ? { gateway } : {}) });
  }
  return compared;
}
