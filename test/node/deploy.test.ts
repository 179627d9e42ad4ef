/**
 * `npm run deploy` (bin/deploy.ts, decision 0061) against a stand-in for wrangler on PATH
 * (helpers/fake-wrangler.mjs): it answers as wrangler does, keeps the account's state and records
 * every command. The first run on an empty account creates the queues, deploys the agent Worker
 * without its binding to the main one (which does not exist yet), uploads a new SOURCE_SECRETS_KEY
 * with the main Worker, migrates the database wrangler created, sets SELF_ORIGIN from the deployed
 * URL and deploys the agent again with it; a second run creates nothing, keeps the key and deploys
 * each Worker once; --dry-run only bundles.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const URL_OF_MAIN = "https://mcp-edge.example-account.workers.dev";

interface AccountState {
  queues: string[];
  d1: boolean;
  workers: Record<string, { vars: Record<string, string>; secrets: Record<string, string>; services: string[]; version: number }>;
  calls: string[][];
}

let directory = "";
let stateFile = "";

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "mcp-edge-deploy-test-"));
  copyFileSync(join(ROOT, "test/node/helpers/fake-wrangler.mjs"), join(directory, "wrangler"));
  chmodSync(join(directory, "wrangler"), 0o755);
  stateFile = join(directory, "account.json");
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function deploy(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(join(ROOT, "node_modules/.bin/tsx"), ["bin/deploy.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, PATH: `${directory}${delimiter}${process.env["PATH"] ?? ""}`, FAKE_WRANGLER_STATE: stateFile },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function account(): AccountState {
  return JSON.parse(readFileSync(stateFile, "utf8")) as AccountState;
}

/** The commands of the last run, each as one line (`deploy -c wrangler.toml --var …`). */
function commandsSince(start: number): string[] {
  return account()
    .calls.slice(start)
    .map((call) => call.join(" "));
}

function deploysIn(commands: readonly string[]): string[] {
  return commands.filter((command) => command.startsWith("deploy "));
}

describe("npm run deploy", () => {
  it("deploys everything on an empty account, then a second run creates nothing and keeps the key", () => {
    const first = deploy();
    expect(first.code, first.stderr).toBe(0);
    const firstCommands = commandsSince(0);

    expect(firstCommands.filter((command) => command.startsWith("queues create"))).toEqual([
      "queues create mcp-edge-events",
      "queues create mcp-edge-events-dlq",
    ]);
    expect(deploysIn(firstCommands)).toEqual([
      "deploy -c workers/agent-worker/wrangler.first-deploy.json",
      expect.stringMatching(/^deploy -c wrangler\.toml --secrets-file \S+secrets\.json$/),
      `deploy -c wrangler.toml --var SELF_ORIGIN:${URL_OF_MAIN}`,
      `deploy -c workers/agent-worker/wrangler.toml --var SELF_ORIGIN:${URL_OF_MAIN} --var MCP_URL:${URL_OF_MAIN}/mcp`,
    ]);
    // Migrated once the first deploy had wrangler create the database.
    const migrateAt = firstCommands.indexOf("d1 migrations apply DB --remote -c wrangler.toml");
    expect(migrateAt).toBeGreaterThan(firstCommands.findIndex((command) => command.startsWith("deploy -c wrangler.toml")));
    const afterFirst = account();
    const key = afterFirst.workers["mcp-edge"]!.secrets["SOURCE_SECRETS_KEY"]!;
    expect(Buffer.from(key, "base64")).toHaveLength(32);
    expect(afterFirst.workers["mcp-edge"]!.vars["SELF_ORIGIN"]).toBe(URL_OF_MAIN);
    expect(afterFirst.workers["mcp-edge-agent"]!.vars).toEqual({ SELF_ORIGIN: URL_OF_MAIN, MCP_URL: `${URL_OF_MAIN}/mcp` });
    expect(afterFirst.workers["mcp-edge-agent"]!.services).toEqual(["mcp-edge"]);
    expect(existsSync(join(ROOT, "workers/agent-worker/wrangler.first-deploy.json"))).toBe(false);
    expect(first.stdout).toContain("done     created queue mcp-edge-events-dlq");
    expect(first.stdout).toContain("done     generated SOURCE_SECRETS_KEY");
    expect(first.stdout).toContain(`done     set SELF_ORIGIN of mcp-edge to ${URL_OF_MAIN}`);
    expect(first.stdout).not.toContain(key);

    const callsBefore = account().calls.length;
    const second = deploy();
    expect(second.code, second.stderr).toBe(0);
    const secondCommands = commandsSince(callsBefore);

    expect(secondCommands.filter((command) => command.startsWith("queues create"))).toEqual([]);
    expect(deploysIn(secondCommands)).toEqual([
      `deploy -c workers/agent-worker/wrangler.toml --var SELF_ORIGIN:${URL_OF_MAIN} --var MCP_URL:${URL_OF_MAIN}/mcp`,
      `deploy -c wrangler.toml --var SELF_ORIGIN:${URL_OF_MAIN}`,
    ]);
    // Migrations before the new code, now that the database exists.
    expect(secondCommands.indexOf("d1 migrations apply DB --remote -c wrangler.toml")).toBeLessThan(
      secondCommands.indexOf(`deploy -c wrangler.toml --var SELF_ORIGIN:${URL_OF_MAIN}`),
    );
    expect(account().workers["mcp-edge"]!.secrets["SOURCE_SECRETS_KEY"]).toBe(key);
    expect(second.stdout).toContain("skipped  queue mcp-edge-events: exists");
    expect(second.stdout).toContain("skipped  SOURCE_SECRETS_KEY: mcp-edge has one (a live key is never replaced)");
    expect(second.stdout).toContain(`skipped  SELF_ORIGIN: already ${URL_OF_MAIN}`);
    expect(second.stdout).toContain("skipped  D1 migrations of mcp-edge: none pending");
  });

  it("moves SELF_ORIGIN to --origin (a custom domain) and redeploys both Workers with it, keeping the key", () => {
    expect(deploy().code).toBe(0);
    const key = account().workers["mcp-edge"]!.secrets["SOURCE_SECRETS_KEY"];
    const callsBefore = account().calls.length;

    const moved = deploy("--origin", "https://mcp.example.com/");
    expect(moved.code, moved.stderr).toBe(0);

    expect(deploysIn(commandsSince(callsBefore))).toEqual([
      `deploy -c workers/agent-worker/wrangler.toml --var SELF_ORIGIN:https://mcp.example.com --var MCP_URL:https://mcp.example.com/mcp`,
      `deploy -c wrangler.toml --var SELF_ORIGIN:https://mcp.example.com`,
    ]);
    expect(account().workers["mcp-edge"]!.vars["SELF_ORIGIN"]).toBe("https://mcp.example.com");
    expect(account().workers["mcp-edge"]!.secrets["SOURCE_SECRETS_KEY"]).toBe(key);
  });

  it("--dry-run bundles both Workers, the agent first, and asks the account nothing", () => {
    const planned = deploy("--dry-run");
    expect(planned.code, planned.stderr).toBe(0);

    expect(commandsSince(0)).toEqual([
      "deploy --dry-run --outdir dist/agent -c workers/agent-worker/wrangler.toml",
      "deploy --dry-run --outdir dist -c wrangler.toml",
    ]);
    const queues = ["create queue mcp-edge-events", "create queue mcp-edge-events-dlq"];
    for (const step of [...queues, "apply pending D1 migrations", "generate SOURCE_SECRETS_KEY", "set SELF_ORIGIN"]) {
      expect(planned.stdout).toContain(step);
    }
    expect(planned.stdout).toContain("nothing changed on Cloudflare");
  });

  it("stops with wrangler's own words when it cannot ask the account, having changed nothing", () => {
    writeFileSync(stateFile, JSON.stringify({ signedOut: true, queues: [], d1: false, migrated: false, workers: {}, calls: [] }));
    const refused = deploy();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("You are not authenticated. Please run `wrangler login`.");
    expect(commandsSince(0)).toEqual(["queues info mcp-edge-events"]);

    const insecure = deploy("--origin", "http://mcp.example.com");
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toContain("--origin http://mcp.example.com: the public origin must be https");
  });
});
