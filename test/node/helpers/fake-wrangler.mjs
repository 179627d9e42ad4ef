#!/usr/bin/env node
// A stand-in for `wrangler` on PATH (test/node/deploy.test.ts): it keeps an account's state in the
// JSON file FAKE_WRANGLER_STATE (queues, the D1 database, Workers with their vars, secrets and
// service bindings), records every call, and answers each command the deployment uses as wrangler
// 4 does — including refusing a Worker whose service binding names a Worker that does not exist
// (code 10143) and provisioning the D1 database on the main Worker's first deploy. Any other
// command fails, so the test sees every command the deployment sends.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const stateFile = process.env.FAKE_WRANGLER_STATE;
const emptyAccount = { queues: [], d1: false, migrated: false, workers: {}, calls: [] };
const state = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : emptyAccount;
const args = process.argv.slice(2);
state.calls.push(args);

const SUBDOMAIN = "example-account";
/** What each config file deploys: its Worker's name and the Workers its service bindings name. */
const CONFIGS = {
  "wrangler.toml": { name: "mcp-edge", services: ["mcp-edge", "mcp-edge-agent"], workersDev: true },
  "workers/agent-worker/wrangler.toml": { name: "mcp-edge-agent", services: ["mcp-edge"], workersDev: false },
};

function save() {
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
}
function fail(message) {
  save();
  process.stderr.write(`✘ [ERROR] ${message}\n`);
  process.exit(1);
}
function done(output) {
  save();
  process.stdout.write(output);
  process.exit(0);
}
function option(name) {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
}
function options(name) {
  return args.flatMap((arg, index) => (arg === name ? [args[index + 1]] : []));
}
function configOf() {
  const path = option("-c") ?? "wrangler.toml";
  if (CONFIGS[path]) return CONFIGS[path];
  const raw = JSON.parse(readFileSync(path, "utf8"));
  return { name: raw.name, services: (raw.services ?? []).map((binding) => binding.service), workersDev: raw.workers_dev !== false };
}

const [command, sub] = args;
if (state.signedOut && !args.includes("--dry-run")) fail("You are not authenticated. Please run `wrangler login`.");
if (command === "queues" && sub === "info") {
  const queue = args[2];
  if (!state.queues.includes(queue)) fail(`Queue "${queue}" does not exist. To create it, run: wrangler queues create ${queue}`);
  done(`Queue Name: ${queue}\nQueue ID: id-${queue}\n`);
}
if (command === "queues" && sub === "create") {
  state.queues.push(args[2]);
  done(`🌀 Creating queue '${args[2]}'\n✅ Created queue '${args[2]}'\n`);
}
if (command === "d1" && sub === "info") {
  if (!state.d1) fail(`Couldn't find a D1 DB named 'mcp-edge' (bound as '${args[2]}') in the API.`);
  done(JSON.stringify({ uuid: "d1-uuid", name: "mcp-edge" }));
}
if (command === "d1" && sub === "migrations" && args[2] === "apply" && args.includes("--remote")) {
  if (!state.d1) fail("Couldn't find a D1 DB named 'mcp-edge' (bound as 'DB') in the API.");
  if (state.migrated) done("✅ No migrations to apply!\n");
  state.migrated = true;
  done("Migrations to be applied:\n0000_init.sql\n…\n✅ 0015_retention_indexes.sql\n");
}
if (command === "secret" && sub === "list") {
  const worker = state.workers[configOf().name];
  if (!worker) fail(`Worker "${configOf().name}" not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.`);
  done(JSON.stringify(Object.keys(worker.secrets).map((name) => ({ name, type: "secret_text" }))));
}
if (command === "deployments" && sub === "status") {
  const worker = state.workers[configOf().name];
  if (!worker) fail(`Worker "${configOf().name}" not found.`);
  done(JSON.stringify({ id: "deployment", versions: [{ version_id: `${configOf().name}-v${worker.version}`, percentage: 100 }] }));
}
if (command === "versions" && sub === "view") {
  const worker = state.workers[configOf().name];
  const bindings = [
    ...Object.entries(worker.vars).map(([name, text]) => ({ type: "plain_text", name, text })),
    ...Object.keys(worker.secrets).map((name) => ({ type: "secret_text", name })),
  ];
  done(JSON.stringify({ id: args[2], resources: { bindings, script: {}, script_runtime: {} } }));
}
if (command === "deploy" && args.includes("--dry-run")) {
  done(`Total Upload: 100.00 KiB / gzip: 20.00 KiB\n--dry-run: exiting now.\n`);
}
if (command === "deploy") {
  const config = configOf();
  for (const target of config.services) {
    if (target !== config.name && !state.workers[target]) {
      fail(
        `A request to the Cloudflare API (/accounts/x/workers/scripts/${config.name}/versions) failed.\n` +
          `  Service binding references Worker '${target}' which was not found. [code: 10143]`,
      );
    }
  }
  const previous = state.workers[config.name] ?? { vars: {}, secrets: {}, version: 0 };
  const vars = { SELF_ORIGIN: "", ...(config.name === "mcp-edge-agent" ? { MCP_URL: "" } : {}) };
  for (const pair of options("--var")) {
    const colon = pair.indexOf(":");
    vars[pair.slice(0, colon)] = pair.slice(colon + 1);
  }
  const secretsFile = option("--secrets-file");
  const secrets = { ...previous.secrets, ...(secretsFile ? JSON.parse(readFileSync(secretsFile, "utf8")) : {}) };
  state.workers[config.name] = { vars, secrets, services: config.services, version: previous.version + 1 };
  if (config.name === "mcp-edge") state.d1 = true;
  const targets = config.workersDev
    ? `Deployed ${config.name} triggers (0.50 sec)\n  https://${config.name}.${SUBDOMAIN}.workers.dev\n  schedule: * * * * *\n`
    : `No targets deployed for ${config.name} (0.20 sec)\n`;
  done(`Uploaded ${config.name} (1.00 sec)\n${targets}Current Version ID: ${config.name}-v${previous.version + 1}\n`);
}
fail(`fake wrangler: no answer for \`wrangler ${args.join(" ")}\``);
