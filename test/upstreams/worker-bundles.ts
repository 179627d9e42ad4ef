/**
 * The main Worker and the chat agent's Worker side by side in the workerd test projects
 * (vitest.config.ts). The plugin builds only the Worker under test; the other one joins as an
 * auxiliary Worker, which Miniflare runs from a built script. So this builds it with the bench's
 * esbuild options (the ones wrangler uses, bench/lib/bundle.ts) and takes its bindings from its own
 * wrangler config (wrangler's unstable_getMiniflareWorkerOptions), then points its binding back to
 * the Worker under test at the plugin's runner, which the plugin names after the project.
 */
import { join } from "node:path";
import type { WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { bundleWorker } from "../../bench/lib/bundle";

const ROOT = join(import.meta.dirname, "../..");
const OUT = join(ROOT, "node_modules/.cache/mcp-edge-test-workers");

/** The name the plugin gives the Worker under test in a project (its getRunnerName). */
export function runnerName(project: string): string {
  return `vitest-plugin-runner-${project.replace(/[^a-z0-9-]/gi, "_")}`;
}

/** A Worker of this repository as Miniflare options: built from `entry`, bound as `config` says. */
async function auxiliaryWorker(config: string, entry: string, name: string, override: (options: WorkerOptions) => WorkerOptions): Promise<WorkerOptions> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, config));
  const scriptPath = await bundleWorker(join(ROOT, entry), join(OUT, name, "index.js"));
  // The config's own paths and module rules are for wrangler's build, not for a built script.
  const { rootPath: _rootPath, modulesRules: _modulesRules, ...bindings } = workerOptions;
  return override({ ...bindings, name, modules: true, scriptPath } as WorkerOptions);
}

/** The agent Worker beside the main Worker under test in `project`: its MCP_EDGE binding reaches the runner. */
export function agentAuxiliaryWorker(project: string, vars: Record<string, string>): Promise<WorkerOptions> {
  return auxiliaryWorker("workers/agent/wrangler.toml", "workers/agent/worker.ts", "mcp-edge-agent", (options) => ({
    ...options,
    bindings: { ...options.bindings, ...vars },
    serviceBindings: { ...options.serviceBindings, MCP_EDGE: { name: runnerName(project), entrypoint: "AgentMcp" } },
  }));
}

/** The main Worker beside the agent Worker under test in `project`: its AGENT binding reaches the runner. */
export function mainAuxiliaryWorker(project: string, vars: Record<string, unknown>): Promise<WorkerOptions> {
  return auxiliaryWorker("wrangler.toml", "workers/index.ts", "mcp-edge", (options) => ({
    ...options,
    bindings: { ...options.bindings, ...vars },
    serviceBindings: { ...options.serviceBindings, AGENT: { name: runnerName(project), entrypoint: "ChatService" } },
  }));
}
