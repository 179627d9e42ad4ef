/**
 * mcp-edge bridge --port <port> --token <secret> --plugins <dir>
 * mcp-edge bridge --port <port> --token <secret> --manifest <dir>/plugin.json
 * mcp-edge bridge --port <port> --token <secret> [--singleton] [--env-allow NAME,...] -- <command> <args…>
 *
 * Runs stdio MCP servers and exposes them as streamable HTTP behind `Authorization: Bearer
 * <secret>`, for the gateway to register as `stdio` sources. See bin/bridge/server.ts.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ENV_VAR_NAME, type Manifest, missingRequiredEnv, parseManifest } from "../../workers/gateway/registry/manifest";
import { stderrLogger, type Logger } from "../bridge/log";
import { commandPlugin, loadPlugins, manifestPlugin, type PluginSpec, UsageError } from "../bridge/plugins";
import { type BridgeOptions, startBridge } from "../bridge/server";

export { processBaseEnv, UsageError } from "../bridge/plugins";

/** A token shorter than this is refused: the bridge runs commands for whoever holds it. */
const MIN_TOKEN_LENGTH = 16;
/**
 * Enough for a gateway with a dozen warm plugins plus transient calls in flight, while a flood of
 * initializes (each a process until DELETE or the idle timeout) stops long before the machine does.
 */
export const DEFAULT_MAX_PROCESSES = 32;
export const DEFAULT_MAX_PROCESSES_PER_TOKEN = 16;

export const BRIDGE_USAGE = `mcp-edge bridge --port <port> --token <secret> --plugins <dir> [options]
mcp-edge bridge --port <port> --token <secret> --manifest <dir>/plugin.json [options]
mcp-edge bridge --port <port> --token <secret> [options] -- <command> [args…]
--plugins serves every directory under <dir> holding a plugin.json or server.json at /plugins/<name>/mcp.
options: --host <addr> (default 127.0.0.1)  --singleton (one shared process per server)
         --env-allow NAME,… (variables a gateway may set)  --idle-timeout <seconds> (default 1800)
         --max-processes <n> (default ${DEFAULT_MAX_PROCESSES})  --max-processes-per-token <n> (default ${DEFAULT_MAX_PROCESSES_PER_TOKEN})
         --token may be given more than once: each token gets its own share of processes.
The token may also come from MCP_BRIDGE_TOKEN.`;

type Env = Readonly<Record<string, string | undefined>>;

export interface BridgeCli {
  host: string;
  port: number;
  tokens: string[];
  singleton: boolean;
  idleTimeoutMs: number;
  maxProcesses: number;
  maxProcessesPerToken: number;
  /** `single`: one server at /mcp (the command, or the manifest); `plugins`: --plugins DIR. */
  serve: BridgeOptions["serve"];
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive whole number`);
  return n;
}

/** The one server of a --manifest bridge, whose required variables must be in the bridge's own environment. */
function singleManifest(path: string, envAllow: ReadonlySet<string>, env: Env): PluginSpec {
  const spec = manifestPlugin("", path, envAllow, env);
  const manifest: Manifest = parseManifest(spec.manifest);
  const present = Object.keys(env).filter((name) => env[name] !== undefined && env[name] !== "");
  const missing = missingRequiredEnv(manifest, present);
  if (missing.length > 0)
    throw new UsageError(`${manifest.name} requires environment variables that are not set: ${missing.join(", ")} (declared in ${path})`);
  return spec;
}

/** Parses argv and checks the environment; throws UsageError with what to fix. */
export function parseBridgeArgs(argv: readonly string[], env: Env, cwd: string, log: Logger = () => undefined): BridgeCli {
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
        token: { type: "string", multiple: true },
        manifest: { type: "string" },
        plugins: { type: "string" },
        singleton: { type: "boolean", default: false },
        "env-allow": { type: "string" },
        "idle-timeout": { type: "string", default: "1800" },
        "max-processes": { type: "string", default: String(DEFAULT_MAX_PROCESSES) },
        "max-processes-per-token": { type: "string", default: String(DEFAULT_MAX_PROCESSES_PER_TOKEN) },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError("--port <0-65535> is required");
  const tokens = [...new Set(values.token ?? (env["MCP_BRIDGE_TOKEN"] ? [env["MCP_BRIDGE_TOKEN"]] : []))];
  if (tokens.length === 0) throw new UsageError("--token <secret> (or MCP_BRIDGE_TOKEN) is required");
  if (tokens.some((token) => token.length < MIN_TOKEN_LENGTH))
    throw new UsageError(`the token must be at least ${MIN_TOKEN_LENGTH} characters`);
  const idle = Number(values["idle-timeout"]);
  if (!Number.isFinite(idle) || idle <= 0) throw new UsageError("--idle-timeout must be a positive number of seconds");
  const maxProcesses = positiveInteger("--max-processes", values["max-processes"]);
  const maxProcessesPerToken = positiveInteger("--max-processes-per-token", values["max-processes-per-token"]);

  const envAllow = new Set<string>();
  for (const name of (values["env-allow"] ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean)) {
    if (!ENV_VAR_NAME.test(name)) throw new UsageError(`--env-allow: ${JSON.stringify(name)} is not a variable name`);
    envAllow.add(name);
  }

  const given = [values.plugins !== undefined, values.manifest !== undefined, commandLine.length > 0].filter(Boolean).length;
  if (given > 1) throw new UsageError("give one of --plugins <dir>, --manifest <plugin.json> or -- <command>");
  let serve: BridgeCli["serve"];
  if (values.plugins !== undefined) serve = { kind: "plugins", plugins: loadPlugins(resolve(cwd, values.plugins), envAllow, env, log) };
  else if (values.manifest !== undefined) serve = { kind: "single", plugin: singleManifest(resolve(cwd, values.manifest), envAllow, env) };
  else if (commandLine.length > 0) serve = { kind: "single", plugin: commandPlugin(commandLine, envAllow, env, cwd) };
  else throw new UsageError("give --plugins <dir>, --manifest <plugin.json> or -- <command> [args…]");

  return {
    host: values.host,
    port,
    tokens,
    singleton: values.singleton,
    idleTimeoutMs: idle * 1000,
    maxProcesses,
    maxProcessesPerToken,
    serve,
  };
}

export async function runBridge(argv: string[]): Promise<number> {
  const log = stderrLogger();
  let cli: BridgeCli;
  try {
    cli = parseBridgeArgs(argv, process.env, process.cwd(), log);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`mcp-edge bridge: ${error.message}\n\n${BRIDGE_USAGE}`);
    return 2;
  }
  const bridge = await startBridge({ ...cli, log });
  return new Promise<number>((done) => {
    const stop = (signal: string) => {
      console.error(`${new Date().toISOString()} bridge stopping signal=${signal}`);
      void bridge.close().then(() => done(0));
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}
