/**
 * Starts `wrangler dev` for a command-line tool (ingest, eval) on a free loopback port — the main
 * Worker and the chat agent's beside it — against a
 * local D1 that is migrated first, with a fresh API token for a named user. `persistTo` chooses the
 * local state: undefined = the one `npm run dev` uses, so ingested documents show up there too.
 * The Worker is bundled once (as `wrangler deploy` would) and served with --no-bundle from a copy
 * of wrangler.toml taken at the same moment, so edits to the sources or the config during a long
 * run cannot reload it mid-request.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, wrangler } from "./wrangler";
import { type LocalWorker, prepareLocalDatabase, runWranglerDev } from "./wrangler-dev";

export type { LocalWorker };

/**
 * The gateway settings `npm run dev` passes (bin/dev.ts), for a Worker on `port`: loopback
 * upstreams allowed, its own origin (SELF_ORIGIN), a throwaway key for source secrets.
 */
function devVars(port: number): string[] {
  return [
    ["ALLOW_PRIVATE_UPSTREAMS", "1"],
    ["SELF_ORIGIN", `http://localhost:${port}`],
    ["SOURCE_SECRETS_KEY", Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")],
  ].flatMap(([name, value]) => ["--var", `${name}:${value}`]);
}

/**
 * The chat agent's Worker, bundled beside the main one and served from a config copy next to it;
 * with `devVars`, its .dev.vars there names the main Worker's gateway on `port` as its MCP_URL
 * (`--var` reaches only the first config's Worker).
 */
function agentWorkerConfig(buildDir: string): { config: string; setDevVars(port: number): void } {
  const agentDir = join(buildDir, "agent");
  wrangler(["deploy", "--dry-run", "--outdir", agentDir, "-c", join(ROOT, "workers", "agent-worker", "wrangler.toml")], { quiet: true });
  const config = join(agentDir, "wrangler.toml");
  writeFileSync(
    config,
    readFileSync(join(ROOT, "workers", "agent-worker", "wrangler.toml"), "utf8").replace(/^main = .*$/m, 'main = "worker.js"'),
  );
  return {
    config,
    setDevVars: (port) =>
      writeFileSync(join(agentDir, ".dev.vars"), `SELF_ORIGIN=http://localhost:${port}\nMCP_URL=http://localhost:${port}/mcp\n`),
  };
}

export async function startLocalWorker(options: {
  user: string;
  label: string;
  persistTo?: string;
  logFile: string;
  /** Also pass the dev-only variables `npm run dev` sets (the console's browser test needs the gateway and agent). */
  devVars?: boolean;
}): Promise<LocalWorker> {
  const token = await prepareLocalDatabase(options.user, options.label, { persistTo: options.persistTo });
  const buildDir = join(ROOT, ".wrangler", "build", options.user);
  wrangler(["deploy", "--dry-run", "--outdir", buildDir], { quiet: true });
  const config = readFileSync(join(ROOT, "wrangler.toml"), "utf8")
    .replace(/^main = .*$/m, 'main = "index.js"')
    .replace(/^migrations_dir = .*$/m, `migrations_dir = ${JSON.stringify(join(ROOT, "d1", "migrations"))}`)
    // The console's static assets stay where they are (the copy lives in another directory).
    .replace(/^directory = "\.\/public"$/m, `directory = ${JSON.stringify(join(ROOT, "public"))}`);
  writeFileSync(join(buildDir, "wrangler.toml"), config);
  const agent = agentWorkerConfig(buildDir);
  const { origin, stop } = await runWranglerDev((port) => {
    if (options.devVars) agent.setDevVars(port);
    return [
      "--config",
      join(buildDir, "wrangler.toml"),
      "--config",
      agent.config,
      "--no-bundle",
      // The config copy lives elsewhere: name the state directory explicitly (default: npm run dev's).
      "--persist-to",
      options.persistTo ?? join(ROOT, ".wrangler", "state"),
      ...(options.devVars ? devVars(port) : []),
    ];
  }, options.logFile);
  return { origin, token, stop };
}

export const LOG_DIR = join(ROOT, ".wrangler", "logs");
