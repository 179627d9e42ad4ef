/**
 * Starts `wrangler dev` for a command-line tool (ingest, eval) on a free loopback port, against a
 * local D1 that is migrated first, with a fresh API token for a named user. `persistTo` chooses the
 * local state: undefined = the one `npm run dev` uses, so ingested documents show up there too.
 * The Worker is bundled once (as `wrangler deploy` would) and served with --no-bundle from a copy
 * of wrangler.toml taken at the same moment, so edits to the sources or the config during a long
 * run cannot reload it mid-request.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generateToken, hashToken, USER_NAME_PATTERN } from "../../workers/auth/tokens";
import { ROOT, sqlString, WRANGLER, wrangler } from "./wrangler";
import { freePort } from "./ports";

const READY_TIMEOUT_MS = 90_000;

export interface LocalWorker {
  origin: string;
  token: string;
  stop(): Promise<void>;
}


function persistArgs(persistTo: string | undefined): string[] {
  return persistTo ? ["--persist-to", persistTo] : [];
}

/** Migrates the local D1 and creates `user` (if new) with a new token; returns the token. */
export async function prepareLocalDatabase(user: string, label: string, persistTo?: string): Promise<string> {
  if (!USER_NAME_PATTERN.test(user)) throw new Error(`user "${user}" is not a valid user name`);
  wrangler(["d1", "migrations", "apply", "DB", "--local", ...persistArgs(persistTo)], { quiet: true });
  const token = generateToken();
  wrangler(
    [
      "d1", "execute", "DB", "--local", ...persistArgs(persistTo), "--command",
      `INSERT INTO users (name) VALUES (${sqlString(user)}) ON CONFLICT(name) DO NOTHING;
       INSERT INTO api_tokens (user_id, token_hash, label) SELECT id, ${sqlString(await hashToken(token))}, ${sqlString(label)} FROM users WHERE name = ${sqlString(user)};`,
    ],
    { quiet: true },
  );
  return token;
}

async function waitUntilReady(origin: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${origin}/health`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const tail = readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
  throw new Error(`wrangler dev did not become ready at ${origin}; last log lines:\n${tail}`);
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    const pid = child.pid;
    const kill = setTimeout(() => process.kill(-pid, "SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    // wrangler dev runs workerd as its own child: signal the process group we created.
    process.kill(-pid, "SIGTERM");
  });
}

/**
 * The gateway/agent settings `npm run dev` passes (bin/dev.ts), for a Worker on `port`: loopback
 * upstreams allowed, its own origin served through SELF, a throwaway key for source secrets.
 */
function devVars(port: number): string[] {
  return [
    ["ALLOW_PRIVATE_UPSTREAMS", "1"],
    ["SELF_ORIGIN", `http://localhost:${port}`],
    ["SOURCE_SECRETS_KEY", Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")],
    ["MCP_URL", `http://localhost:${port}/mcp`],
  ].flatMap(([name, value]) => ["--var", `${name}:${value}`]);
}

export async function startLocalWorker(options: {
  user: string;
  label: string;
  persistTo?: string;
  logFile: string;
  /** Also pass the dev-only variables `npm run dev` sets (the console's browser test needs the gateway and agent). */
  devVars?: boolean;
}): Promise<LocalWorker> {
  const token = await prepareLocalDatabase(options.user, options.label, options.persistTo);
  const buildDir = join(ROOT, ".wrangler", "build", options.user);
  wrangler(["deploy", "--dry-run", "--outdir", buildDir], { quiet: true });
  const config = readFileSync(join(ROOT, "wrangler.toml"), "utf8")
    .replace(/^main = .*$/m, 'main = "index.js"')
    .replace(/^migrations_dir = .*$/m, `migrations_dir = ${JSON.stringify(join(ROOT, "d1", "migrations"))}`)
    // The console's static assets stay where they are (the copy lives in another directory).
    .replace(/^directory = "\.\/public"$/m, `directory = ${JSON.stringify(join(ROOT, "public"))}`);
  writeFileSync(join(buildDir, "wrangler.toml"), config);
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile);
  const child = spawn(
    WRANGLER,
    ["dev", "--config", join(buildDir, "wrangler.toml"), "--no-bundle", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort),
      // The config copy lives elsewhere: name the state directory explicitly (default: npm run dev's).
      "--persist-to", options.persistTo ?? join(ROOT, ".wrangler", "state"),
      "--show-interactive-dev-session=false", ...(options.devVars ? devVars(port) : [])],
    { cwd: ROOT, env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const stop = () => stopGroup(child);
  try {
    await waitUntilReady(origin, child, options.logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, token, stop };
}

export const LOG_DIR = join(ROOT, ".wrangler", "logs");
