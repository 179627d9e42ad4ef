/**
 * Serves a bundled Worker straight from workerd through Miniflare's API (no `wrangler dev`), on
 * 127.0.0.1 with an ephemeral port and ephemeral storage that Miniflare deletes on dispose().
 * Each Worker gets its own Miniflare instance, so its own workerd process: the CPU phase reads
 * that process's CPU time from /proc.
 */
import { dirname } from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare, type V4MiniflareOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { childPids } from "./proc";

/** The worker-level part of Miniflare's v4 options (bindings, flags, triggers). */
export type WorkerOptions = Omit<Extract<V4MiniflareOptions, { scriptPath: string }>, "scriptPath" | "modules" | "modulesRoot" | "script">;

export interface ServedWorker {
  name: string;
  url: URL;
  /** The workerd process serving this Worker, when it could be identified (Linux /proc). */
  pid: number | undefined;
  miniflare: Miniflare;
  /** Worker-side log lines at warn/error level, kept (bounded) for diagnostics. */
  problems: string[];
  /** Stops workerd and deletes its storage; safe to call more than once. */
  dispose(): Promise<void>;
}

const MAX_KEPT_PROBLEMS = 20;

/**
 * The Worker options wrangler derives from wrangler.toml (D1, queue producer and consumers, vars,
 * compatibility settings), minus what does not apply to a pre-built single-file bundle.
 * Cron triggers are dropped: Miniflare would not fire them on its own anyway, and a cron run in
 * the middle of a round would be noise.
 *
 * [assets] (the web console) is dropped too unless `assetRouter` is set. With it, Miniflare puts
 * its asset router and asset Worker in front of the Worker, in JavaScript, in the same workerd
 * process: every /mcp request crosses two more Workers and their CPU is charged to the process the
 * bench measures, on the same two cores as the load. On Cloudflare that routing is the platform's
 * (wrangler.toml's run_worker_first sends /mcp/* to the Worker) and is neither the Worker's CPU
 * nor something the peers pay. `--compare <ref>+assets` measures what it costs locally.
 */
export function wranglerWorkerOptions(configPath: string, vars: Record<string, string> = {}, assetRouter = false): WorkerOptions {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  const { modulesRules: _rules, rootPath: _root, cronTriggers: _crons, assets, bindings, serviceBindings, ...options } = workerOptions;
  // `vars` override wrangler.toml's [vars] (e.g. TOKEN_CACHE_SECONDS for the uncached-auth run).
  const tomlVars: object = typeof bindings === "object" && bindings !== null ? bindings : {};
  // The bench serves one Worker: a binding to another one (the chat agent's, AGENT) would name a
  // Worker Miniflare does not run, and no benchmarked route uses it. Bindings to itself (GATEWAY_INVENTORY) stay.
  const services = Object.entries(typeof serviceBindings === "object" && serviceBindings !== null ? serviceBindings : {}).filter(
    ([, target]: [string, unknown]) => typeof target === "object" && target !== null && "name" in target && target.name === "mcp-edge",
  );
  return {
    ...options,
    ...(assetRouter && assets ? { assets } : {}),
    bindings: { ...tomlVars, ...vars },
    serviceBindings: Object.fromEntries(services),
  };
}

export async function serveWorker(input: {
  name: string;
  scriptPath: string;
  options: WorkerOptions;
  inspectorPort?: number;
  /** A fixed port, when the Worker must know its own origin before it starts (SELF_ORIGIN). */
  port?: number;
}): Promise<ServedWorker> {
  const problems: string[] = [];
  const before = new Set(childPids(process.pid));
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      ...input.options,
      name: input.name,
      host: "127.0.0.1",
      port: input.port ?? 0,
      ...(input.inspectorPort !== undefined ? { inspectorPort: input.inspectorPort } : {}),
      modules: true,
      scriptPath: input.scriptPath,
      // Module names are paths relative to this root; the bundle's own directory keeps them inside it.
      modulesRoot: dirname(input.scriptPath),
      // Placeholder request.cf: the real one would be fetched from the network.
      cf: false,
      log: new Log(LogLevel.WARN, { prefix: input.name }),
      handleStructuredLogs: ({ level, message }) => {
        if (level !== "error" && level !== "warn") return;
        if (problems.length < MAX_KEPT_PROBLEMS) problems.push(`${level}: ${message}`);
      },
    }),
  );
  const url = await miniflare.ready;
  const started = childPids(process.pid).filter((pid) => !before.has(pid));
  let disposed: Promise<void> | undefined;
  return {
    name: input.name,
    url,
    pid: started.length === 1 ? started[0] : undefined,
    miniflare,
    problems,
    // Idempotent: both an early stop and the final cleanup may ask.
    dispose: () => (disposed ??= miniflare.dispose()),
  };
}
