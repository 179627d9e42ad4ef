/**
 * mcp-edge bridge --port <port> --token <secret> --manifest <dir>/plugin.json
 * mcp-edge bridge --port <port> --token <secret> [--singleton] [--env-allow NAME,...] -- <command> <args…>
 *
 * Runs a stdio MCP server and exposes it as streamable HTTP on http://<host>:<port>/mcp behind
 * `Authorization: Bearer <secret>`, for the gateway to register as a `stdio` source. See bin/bridge/server.ts.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { declaredEnv, ENV_VAR_NAME, type Manifest, missingRequiredEnv, parseManifest, stdioLaunch } from "../../workers/gateway/manifest";
import { AppError } from "../../workers/lib/errors";
import { startBridge } from "../bridge/server";
import { stderrLogger } from "../bridge/log";

export const BRIDGE_USAGE = `mcp-edge bridge --port <port> --token <secret> --manifest <dir>/plugin.json [options]
mcp-edge bridge --port <port> --token <secret> [options] -- <command> [args…]
options: --host <addr> (default 127.0.0.1)  --singleton (one shared process)
         --env-allow NAME,… (variables a gateway may set)  --idle-timeout <seconds> (default 1800)
The token may also come from MCP_BRIDGE_TOKEN.`;

/**
 * What a stdio process inherits from the bridge's environment besides the declared variables — the
 * MCP SDK's StdioClientTransport default. Everything else the operator's shell holds (cloud keys,
 * tokens) stays out: a plugin may well print its environment (server-everything's get-env does).
 */
const INHERITED_ENV =
  process.platform === "win32"
    ? ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];

/** The environment every process starts with: inherited basics, then manifest defaults, then the declared variables the bridge has. */
export function processBaseEnv(cli: Pick<BridgeCli, "allowedEnv" | "defaults">, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const name of INHERITED_ENV) if (env[name] !== undefined) base[name] = env[name];
  Object.assign(base, cli.defaults);
  for (const name of cli.allowedEnv) if (env[name] !== undefined) base[name] = env[name];
  return base;
}

/** A token shorter than this is refused: the bridge runs arbitrary commands for whoever holds it. */
const MIN_TOKEN_LENGTH = 16;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface BridgeCli {
  host: string;
  port: number;
  token: string;
  singleton: boolean;
  idleTimeoutMs: number;
  command: string;
  args: string[];
  cwd: string;
  allowedEnv: Set<string>;
  /** Manifest defaults for declared variables the bridge's environment does not set. */
  defaults: Record<string, string>;
}

function readManifest(path: string): Manifest {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read manifest ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`manifest ${path} is not valid JSON`);
  }
  try {
    return parseManifest(value);
  } catch (error) {
    if (error instanceof AppError) throw new UsageError(`${path}: ${error.message}`);
    throw error;
  }
}

/** Parses argv and checks the environment; throws UsageError with what to fix. */
export function parseBridgeArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): BridgeCli {
  const split = argv.indexOf("--");
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const commandLine = split === -1 ? [] : argv.slice(split + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string", default: "127.0.0.1" },
        token: { type: "string" },
        manifest: { type: "string" },
        singleton: { type: "boolean", default: false },
        "env-allow": { type: "string" },
        "idle-timeout": { type: "string", default: "1800" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError("--port <0-65535> is required");
  const token = values.token ?? env["MCP_BRIDGE_TOKEN"];
  if (!token) throw new UsageError("--token <secret> (or MCP_BRIDGE_TOKEN) is required");
  if (token.length < MIN_TOKEN_LENGTH) throw new UsageError(`the token must be at least ${MIN_TOKEN_LENGTH} characters`);
  const idle = Number(values["idle-timeout"]);
  if (!Number.isFinite(idle) || idle <= 0) throw new UsageError("--idle-timeout must be a positive number of seconds");

  const allowedEnv = new Set<string>();
  for (const name of (values["env-allow"] ?? "").split(",").map((n) => n.trim()).filter(Boolean)) {
    if (!ENV_VAR_NAME.test(name)) throw new UsageError(`--env-allow: ${JSON.stringify(name)} is not a variable name`);
    allowedEnv.add(name);
  }

  let command: string;
  let args: string[];
  let workDir = cwd;
  const defaults: Record<string, string> = {};
  if (values.manifest !== undefined) {
    if (commandLine.length > 0) throw new UsageError("give either --manifest or -- <command>, not both");
    const path = resolve(cwd, values.manifest);
    const manifest = readManifest(path);
    ({ command, args } = stdioLaunch(manifest));
    workDir = dirname(path);
    for (const v of declaredEnv(manifest)) {
      allowedEnv.add(v.name);
      if (v.default !== undefined && env[v.name] === undefined) defaults[v.name] = v.default;
    }
    const present = Object.keys(env).filter((name) => env[name] !== undefined && env[name] !== "");
    const missing = missingRequiredEnv(manifest, present);
    if (missing.length > 0) {
      throw new UsageError(`${manifest.name} requires environment variables that are not set: ${missing.join(", ")} (declared in ${path})`);
    }
  } else {
    if (commandLine.length === 0) throw new UsageError("give --manifest <plugin.json> or -- <command> [args…]");
    [command, ...args] = commandLine as [string, ...string[]];
  }
  return {
    host: values.host,
    port,
    token,
    singleton: values.singleton,
    idleTimeoutMs: idle * 1000,
    command,
    args,
    cwd: workDir,
    allowedEnv,
    defaults,
  };
}

export async function runBridge(argv: string[]): Promise<number> {
  let cli: BridgeCli;
  try {
    cli = parseBridgeArgs(argv, process.env, process.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`mcp-edge bridge: ${error.message}\n\n${BRIDGE_USAGE}`);
    return 2;
  }
  const baseEnv = processBaseEnv(cli, process.env);
  const bridge = await startBridge({
    host: cli.host,
    port: cli.port,
    token: cli.token,
    command: cli.command,
    args: cli.args,
    cwd: cli.cwd,
    baseEnv,
    allowedEnv: cli.allowedEnv,
    singleton: cli.singleton,
    idleTimeoutMs: cli.idleTimeoutMs,
    log: stderrLogger(),
  });
  return new Promise<number>((done) => {
    const stop = (signal: string) => {
      console.error(`${new Date().toISOString()} bridge stopping signal=${signal}`);
      void bridge.close().then(() => done(0));
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}
