/**
 * The whole deployment, first time and every time (decision 0061). Wrangler provisions the D1
 * database and the KV namespace itself (their bindings carry no id: the first deploy creates them,
 * later deploys keep them bound); this creates what it does not and does the rest, skipping what is
 * already so:
 *  1. every queue the Workers use, dead-letter queues included;
 *  2. D1 migrations, remotely — before the new code, or just after the first deploy created the database;
 *  3. the chat agent's Worker first (the main Worker binds to it). It binds back to the main Worker,
 *     so the very first time, before that exists, it goes up without that binding and again at the end;
 *  4. SOURCE_SECRETS_KEY, generated only when the Worker has none (never replacing a live key),
 *     uploaded with the main Worker's deploy;
 *  5. the main Worker, then SELF_ORIGIN — the deployed workers.dev URL, or --origin — deployed
 *     again only when it differs from what the current version has; the agent then follows with
 *     SELF_ORIGIN and MCP_URL (`<origin>/mcp` unless its config names another).
 * --dry-run runs `wrangler deploy --dry-run` for both bundles and prints the rest as a plan, asking
 * Cloudflare nothing.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindsTo, type DeployConfigs, readDeployConfigs, type WorkerConfig, withoutBindingsTo } from "./configs";
import { databaseExists, deployedVar, queueExists, secretNames, workersDevUrl } from "./cloudflare-state";
import type { Report } from "./report";
import type { Wrangler } from "./wrangler-cli";

export const SECRETS_KEY = "SOURCE_SECRETS_KEY";

export interface DeployOptions {
  dryRun: boolean;
  /** The Worker's public origin when it is not its workers.dev URL (a custom domain). */
  origin?: string | undefined;
}

/** The agent's config without its binding to the main Worker, for the first deploy: beside the real one, so its paths resolve. */
const FIRST_AGENT_CONFIG = "workers/agent-worker/wrangler.first-deploy.json";

interface Context {
  root: string;
  wrangler: Wrangler;
  report: Report;
  configs: DeployConfigs;
  /** Files to delete when the deployment ends, however it ends. */
  scratch: string[];
}

function originVars(ctx: Context, worker: WorkerConfig, origin: string): string[] {
  if (origin === "") return [];
  const vars = [`SELF_ORIGIN:${origin}`];
  if (worker === ctx.configs.agent && ctx.configs.agentMcpUrl === "") vars.push(`MCP_URL:${origin}/mcp`);
  return vars.flatMap((value) => ["--var", value]);
}

function deployWorker(ctx: Context, worker: WorkerConfig, origin: string, extra: string[] = [], configPath = worker.path): string {
  return ctx.wrangler.run(["deploy", "-c", configPath, ...originVars(ctx, worker, origin), ...extra]);
}

function migrate(ctx: Context): void {
  const { binding, name } = ctx.configs.database;
  const output = ctx.wrangler.run(["d1", "migrations", "apply", binding, "--remote", "-c", ctx.configs.main.path]);
  if (/no migrations to apply/i.test(output)) ctx.report.skipped(`D1 migrations of ${name}`, "none pending");
  else ctx.report.did(`applied the pending D1 migrations to ${name}`);
}

function ensureQueues(ctx: Context): void {
  for (const queue of ctx.configs.queues) {
    if (queueExists(ctx.wrangler, queue)) {
      ctx.report.skipped(`queue ${queue}`, "exists");
    } else {
      ctx.wrangler.run(["queues", "create", queue]);
      ctx.report.did(`created queue ${queue}`);
    }
  }
}

/** A new key in a secrets file for the deploy (mode 0600, deleted afterwards): 32 random bytes, base64. */
function newKeyFile(ctx: Context): string {
  const directory = mkdtempSync(join(tmpdir(), "mcp-edge-deploy-"));
  ctx.scratch.push(directory);
  const file = join(directory, "secrets.json");
  writeFileSync(file, JSON.stringify({ [SECRETS_KEY]: randomBytes(32).toString("base64") }), { mode: 0o600 });
  return file;
}

/** The agent's config without its binding to the main Worker, as a file beside the real one. */
function firstAgentConfig(ctx: Context): string {
  const path = join(ctx.root, FIRST_AGENT_CONFIG);
  writeFileSync(path, JSON.stringify(withoutBindingsTo(ctx.configs.agent, ctx.configs.main.name), null, 2));
  ctx.scratch.push(path);
  return FIRST_AGENT_CONFIG;
}

function deployForReal(ctx: Context, options: DeployOptions): void {
  const { main, agent, database } = ctx.configs;
  ensureQueues(ctx);

  const secrets = secretNames(ctx.wrangler, main.path);
  const mainDeployed = secrets !== undefined;
  const deployedOrigin = mainDeployed ? deployedVar(ctx.wrangler, main.path, "SELF_ORIGIN") : "";
  const origin = options.origin ?? deployedOrigin;

  const databaseExisted = databaseExists(ctx.wrangler, main.path, database.binding);
  if (databaseExisted) migrate(ctx);

  const cycle = !mainDeployed && bindsTo(agent, main.name);
  if (cycle) {
    deployWorker(ctx, agent, origin, [], firstAgentConfig(ctx));
    ctx.report.did(`deployed ${agent.name} without its binding to ${main.name}, which does not exist yet (deployed again with it below)`);
  } else {
    deployWorker(ctx, agent, origin);
    ctx.report.did(`deployed ${agent.name}`);
  }

  let keyFile: string | undefined;
  if (secrets?.has(SECRETS_KEY)) ctx.report.skipped(SECRETS_KEY, `${main.name} has one (a live key is never replaced)`);
  else keyFile = newKeyFile(ctx);

  const output = deployWorker(ctx, main, origin, keyFile ? ["--secrets-file", keyFile] : []);
  const provisioned = mainDeployed ? "" : ` (wrangler created and bound its D1 database ${database.name} and KV namespace)`;
  ctx.report.did(`deployed ${main.name}${provisioned}`);
  if (keyFile) ctx.report.did(`generated ${SECRETS_KEY} and uploaded it with ${main.name}`);
  if (!databaseExisted) migrate(ctx);

  const target = options.origin ?? workersDevUrl(output);
  if (target === undefined) {
    throw new Error(`the deploy of ${main.name} printed no workers.dev URL: pass --origin https://<its public origin>`);
  }
  if (target === origin) {
    ctx.report.skipped("SELF_ORIGIN", `already ${target}`);
  } else {
    deployWorker(ctx, main, target);
    ctx.report.did(`set SELF_ORIGIN of ${main.name} to ${target}`);
  }
  if (cycle || target !== origin) {
    deployWorker(ctx, agent, target);
    const mcpUrl = ctx.configs.agentMcpUrl === "" ? ` and MCP_URL ${target}/mcp` : "";
    ctx.report.did(`deployed ${agent.name} with SELF_ORIGIN ${target}${mcpUrl}`);
  }
}

function planOnly(ctx: Context): void {
  const { main, agent, database } = ctx.configs;
  for (const queue of ctx.configs.queues) ctx.report.would(`create queue ${queue} unless it exists (wrangler queues info, queues create)`);
  ctx.report.would(`read ${main.name}'s secret names and current SELF_ORIGIN (wrangler secret list, deployments status, versions view)`);
  ctx.report.would(
    `apply pending D1 migrations to ${database.name} (wrangler d1 migrations apply ${database.binding} --remote): ` +
      "before the deploy, or just after it the first time, once wrangler has created the database",
  );
  ctx.wrangler.run(["deploy", "--dry-run", "--outdir", join("dist", "agent"), "-c", agent.path]);
  ctx.report.would(
    `deploy ${agent.name} (wrangler deploy -c ${agent.path}; bundle checked with --dry-run), ` +
      `without its binding to ${main.name} the first time`,
  );
  ctx.report.would(`generate ${SECRETS_KEY} and upload it with ${main.name} (--secrets-file), only if it has none: a live key stays`);
  ctx.wrangler.run(["deploy", "--dry-run", "--outdir", "dist", "-c", main.path]);
  ctx.report.would(
    `deploy ${main.name} (wrangler deploy -c ${main.path}; bundle checked with --dry-run); ` +
      `the first time wrangler creates D1 ${database.name} and the KV namespace`,
  );
  ctx.report.would(
    `set SELF_ORIGIN to the deployed URL (or --origin) unless already so (wrangler deploy --var), ` +
      `then deploy ${agent.name} with it and MCP_URL`,
  );
}

export function deploy(root: string, wrangler: Wrangler, report: Report, options: DeployOptions): void {
  const ctx: Context = { root, wrangler, report, configs: readDeployConfigs(root), scratch: [] };
  try {
    if (options.dryRun) planOnly(ctx);
    else deployForReal(ctx, options);
  } finally {
    for (const path of ctx.scratch) rmSync(path, { recursive: true, force: true });
  }
}
