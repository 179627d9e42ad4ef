/**
 * A Worker under `wrangler dev` on a free loopback port, with its own local D1 (migrated) under
 * .wrangler/conformance/, so a conformance run never touches `npm run dev` state or port 8787.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateToken, hashToken } from "../../workers/auth/tokens";
import { freePort } from "../lib/ports";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
const WRANGLER_ENV = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
const READY_TIMEOUT_MS = 90_000;

export interface LocalWorker {
  label: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** A bearer token for a user created in this Worker's local D1. */
  token: string;
  stop(): Promise<void>;
}

export interface LocalWorkerOptions {
  label: string;
  /** wrangler config, relative to the repository root */
  config: string;
  logDir: string;
}


function wrangler(args: readonly string[]): string {
  const result = spawnSync(WRANGLER, args, { cwd: ROOT, encoding: "utf8", env: WRANGLER_ENV, maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stderr || result.stdout}`);
  return result.stdout;
}

/** Migrates the local D1 and inserts a fresh user + token (only its SHA-256 is stored, as in production). */
async function prepareDatabase(config: string, persistTo: string): Promise<string> {
  const target = ["DB", "--local", "--config", config, "--persist-to", persistTo];
  wrangler(["d1", "migrations", "apply", ...target]);
  const token = generateToken();
  const user = `conformance-${Date.now()}`;
  wrangler([
    "d1", "execute", ...target, "--command",
    `INSERT INTO users (name) VALUES ('${user}');
     INSERT INTO api_tokens (user_id, token_hash, label) SELECT id, '${await hashToken(token)}', 'npm run conformance' FROM users WHERE name = '${user}';`,
  ]);
  return token;
}

async function waitUntilReady(origin: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${origin}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const log = readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
  throw new Error(`wrangler dev did not become ready at ${origin}; last log lines:\n${log}`);
}

/** Every wrangler dev started here and not yet stopped, so an interrupt can stop one still booting. */
const live = new Set<ChildProcess>();

export function stopAllWorkers(): Promise<void> {
  return Promise.all([...live].map(stopProcessGroup)).then(() => undefined);
}

function stopProcessGroup(child: ChildProcess): Promise<void> {
  live.delete(child);
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    // wrangler dev runs workerd as its own child: signal the whole process group we created for it.
    const pid = child.pid;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const kill = setTimeout(() => signalGroup("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      signalGroup("SIGKILL"); // anything of the group that outlived wrangler itself
      resolve();
    });
    signalGroup("SIGTERM");
  });
}

export async function startLocalWorker({ label, config, logDir }: LocalWorkerOptions): Promise<LocalWorker> {
  const persistTo = join(".wrangler", "conformance", label);
  const token = await prepareDatabase(config, persistTo);
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${label}.wrangler.log`);
  const log = createWriteStream(logFile);
  const child = spawn(
    WRANGLER,
    ["dev", "--config", config, "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort),
      "--persist-to", persistTo, "--show-interactive-dev-session=false"],
    { cwd: ROOT, env: WRANGLER_ENV, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  live.add(child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const stop = () => stopProcessGroup(child);
  try {
    await waitUntilReady(origin, child, logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { label, origin, token, stop };
}
