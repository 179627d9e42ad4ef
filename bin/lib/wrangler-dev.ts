/**
 * `wrangler dev` as a child process for Node-side tools (ingest, eval, conformance, the browser
 * test): a free loopback port, a migrated local D1 with a fresh token, readiness on /health, and a
 * stop that takes the whole process group (wrangler runs workerd as its own child).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { generateToken, hashToken, LOGIN_CODE_SECONDS, randomSecret, USER_NAME_PATTERN } from "../../workers/auth/tokens";
import { freePort } from "./ports";
import { ROOT, sqlString, WRANGLER, wrangler } from "./wrangler";

const READY_TIMEOUT_MS = 90_000;

export interface LocalWorker {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** A bearer token for the user the Worker was prepared with. */
  token: string;
  stop(): Promise<void>;
}

export interface DatabaseTarget {
  /** wrangler config (default: wrangler.toml) */
  config?: string;
  /** local state directory (default: the one `npm run dev` uses) */
  persistTo?: string;
}

function targetArgs({ config, persistTo }: DatabaseTarget): string[] {
  return [...(config ? ["--config", config] : []), ...(persistTo ? ["--persist-to", persistTo] : [])];
}

/** Migrates the local D1 and creates `user` (if new) with a new token; only its SHA-256 is stored. */
export async function prepareLocalDatabase(user: string, label: string, target: DatabaseTarget = {}): Promise<string> {
  if (!USER_NAME_PATTERN.test(user)) throw new Error(`user "${user}" is not a valid user name`);
  const db = ["DB", "--local", ...targetArgs(target)];
  wrangler(["d1", "migrations", "apply", ...db], { quiet: true });
  const token = generateToken();
  wrangler(
    [
      "d1",
      "execute",
      ...db,
      "--command",
      `INSERT INTO users (name) VALUES (${sqlString(user)}) ON CONFLICT(name) DO NOTHING;
       INSERT INTO api_tokens (user_id, token_hash, label) SELECT id, ${sqlString(await hashToken(token))}, ${sqlString(label)} FROM users WHERE name = ${sqlString(user)};`,
    ],
    { quiet: true },
  );
  return token;
}

/** A one-time sign-in code for `user` in that local D1, as `npm run token -- login-link` makes one (only its SHA-256 is stored). */
export async function createLocalLoginCode(user: string, target: DatabaseTarget = {}): Promise<string> {
  if (!USER_NAME_PATTERN.test(user)) throw new Error(`user "${user}" is not a valid user name`);
  const code = randomSecret();
  const expiresAt = new Date(Date.now() + LOGIN_CODE_SECONDS * 1000).toISOString();
  wrangler(
    [
      "d1",
      "execute",
      "DB",
      "--local",
      ...targetArgs(target),
      "--command",
      `INSERT INTO users (name) VALUES (${sqlString(user)}) ON CONFLICT(name) DO NOTHING;
       INSERT INTO login_links (code_hash, user_id, expires_at) SELECT ${sqlString(await hashToken(code))}, id, ${sqlString(expiresAt)} FROM users WHERE name = ${sqlString(user)};`,
    ],
    { quiet: true },
  );
  return code;
}

/** Every wrangler dev started here and not yet stopped, so an interrupt can stop one still booting. */
const live = new Set<ChildProcess>();

export function stopAllWorkers(): Promise<void> {
  return Promise.all([...live].map((child) => stopProcessGroup(child))).then(() => undefined);
}

/** `SIGTERM` asks the group to stop (then SIGKILL after 5 s); `SIGKILL` kills it at once, as a crash would. */
function stopProcessGroup(child: ChildProcess, first: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
  live.delete(child);
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
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
    signalGroup(first);
  });
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

/**
 * Runs `wrangler dev <args>` on a free loopback port (decided before start, so `args` may use it),
 * logging to `logFile`, and resolves once /health answers.
 */
export async function runWranglerDev(
  args: (port: number) => string[],
  logFile: string,
): Promise<{ origin: string; stop(): Promise<void>; crash(): Promise<void> }> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const child = spawn(
    WRANGLER,
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--show-interactive-dev-session=false",
      ...args(port),
    ],
    { cwd: ROOT, env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
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
  // SIGKILL to the whole group: wrangler and workerd die mid-request, with no chance to flush anything.
  return { origin, stop, crash: () => stopProcessGroup(child, "SIGKILL") };
}
