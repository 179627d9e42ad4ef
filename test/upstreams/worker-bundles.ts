/**
 * The main Worker and the chat agent's Worker side by side in the workerd test projects
 * (vitest.config.ts). The plugin builds only the Worker under test; the other one joins as an
 * auxiliary Worker, which Miniflare runs from a built script. So this builds it with the bench's
 * esbuild options (the ones wrangler uses, bench/lib/bundle.ts) and takes its bindings from its own
 * wrangler config (wrangler's unstable_getMiniflareWorkerOptions), then points its binding back to
 * the Worker under test at the plugin's runner, which the plugin names after the project.
 */
import { rename } from "node:fs/promises";
import { join } from "node:path";
import type { cloudflareTest } from "@cloudflare/vitest-plugin";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { bundleWorker } from "../../bench/lib/bundle";

const ROOT = join(import.meta.dirname, "../..");
const OUT = join(ROOT, "node_modules/.cache/mcp-edge-test-workers");

type PoolOptions = Exclude<Parameters<typeof cloudflareTest>[0], (...args: never[]) => unknown>;
/** An auxiliary Worker as the plugin takes it (Miniflare's options, with a built script). */
export type WorkerOptions = NonNullable<NonNullable<PoolOptions["miniflare"]>["workers"]>[number];

/** Each entry's bundle, built on first use. */
const built = new Map<string, Promise<string>>();

/** The name the plugin gives the Worker under test in a project (its getRunnerName). */
export function runnerName(project: string): string {
  return `vitest-plugin-runner-${project.replace(/[^a-z0-9-]/gi, "_")}`;
}

/**
 * Bundles `entry` into `outFile` through a file of its own, then renames it into place: the config
 * is loaded by more than one process of a run, and a Worker starting while another load rewrote the
 * bundle in place would read half a file.
 */
async function bundleInPlace(entry: string, outFile: string): Promise<string> {
  const written = await bundleWorker(join(ROOT, entry), `${outFile}.${process.pid}.${crypto.randomUUID()}.js`);
  await rename(written, outFile);
  return outFile;
}

/** A Worker of this repository as Miniflare options: built from `entry`, bound as `config` says. */
export async function auxiliaryWorker(
  config: string,
  entry: string,
  name: string,
  override: (options: WorkerOptions) => WorkerOptions,
): Promise<WorkerOptions> {
  const options = unstable_getMiniflareWorkerOptions(join(ROOT, config)).workerOptions;
  // Built once per config load, however many projects (or names) run the Worker.
  let scriptPath = built.get(entry);
  if (scriptPath === undefined) built.set(entry, (scriptPath = bundleInPlace(entry, join(OUT, name, "index.js"))));
  // What the tests use of the config (the console's assets and the cron are not among it). Wrangler
  // types these loosely; the plugin checks them when it starts Miniflare.
  const worker = {
    name,
    modules: true,
    scriptPath: await scriptPath,
    compatibilityDate: options.compatibilityDate,
    compatibilityFlags: options.compatibilityFlags,
    bindings: options.bindings,
    durableObjects: options.durableObjects,
    serviceBindings: options.serviceBindings,
    d1Databases: options.d1Databases,
    kvNamespaces: options.kvNamespaces,
    queueProducers: options.queueProducers,
    queueConsumers: options.queueConsumers,
    ratelimits: options.ratelimits,
  } as WorkerOptions;
  return override(worker);
}

/** The agent Worker beside the main Worker under test in `project`: its MCP_EDGE binding reaches the runner. */
export function agentAuxiliaryWorker(project: string, vars: Record<string, string>): Promise<WorkerOptions> {
  return auxiliaryWorker("workers/agent-worker/wrangler.toml", "workers/agent-worker/worker.ts", "mcp-edge-agent", (options) => ({
    ...options,
    bindings: { ...options.bindings, ...vars },
    serviceBindings: { ...options.serviceBindings, MCP_EDGE: { name: runnerName(project), entrypoint: "AgentMcp" } },
  }));
}

/** The main Worker beside the agent Worker under test in `project`: its AGENT binding reaches the runner. */
export function mainAuxiliaryWorker(project: string, vars: NonNullable<WorkerOptions["bindings"]>): Promise<WorkerOptions> {
  return auxiliaryWorker("wrangler.toml", "workers/index.ts", "mcp-edge", (options) => ({
    ...options,
    bindings: { ...options.bindings, ...vars },
    serviceBindings: { ...options.serviceBindings, AGENT: { name: runnerName(project), entrypoint: "ChatService" } },
  }));
}
