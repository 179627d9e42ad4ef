/**
 * What the bridge runs: one `PluginSpec` per stdio server — the command after `--`, the manifest
 * of `--manifest`, or every plugin directory under `--plugins DIR` that holds a `plugin.json` or
 * `server.json` (the original tools provider's layout). Each spec fixes the command line, the
 * working directory, the environment every process starts with and the names a gateway may set.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { PLUGIN_NAME } from "../../workers/gateway/registry/bridge-plugins";
import {
  declaredEnv,
  type Manifest,
  parseManifest,
  redactSecretDefaults,
  secretEnvNames,
  stdioLaunch,
} from "../../workers/gateway/registry/manifest";
import { AppError } from "../../workers/lib/errors";
import type { Logger } from "./log";

export interface PluginSpec {
  /** The directory name under --plugins; "" for the one server of a --manifest or `--` bridge. */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** Names a gateway may set through Mcp-Bridge-Env: the manifest's declared ones and --env-allow. */
  allowedEnv: Set<string>;
  /** Manifest defaults for declared variables the bridge's environment does not set. */
  defaults: Record<string, string>;
  /** The environment every process starts with (inherited basics, defaults, declared ones the bridge has). */
  baseEnv: Record<string, string>;
  /** Required variables without a default: each session's process must get them from Mcp-Bridge-Env or baseEnv. */
  requiredEnv: string[];
  /** Declared variables the bridge's own environment sets (names only; the gateway need not send them). */
  providedEnv: string[];
  /** The manifest as served on GET /plugins/<name>: as written, secret defaults redacted; null without one. */
  manifest: Record<string, unknown> | null;
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a stdio process inherits from the bridge's environment besides the declared variables — the
 * MCP SDK's StdioClientTransport default. Everything else the operator's shell holds (cloud keys,
 * tokens) stays out: a plugin may well print its environment (server-everything's get-env does).
 */
const INHERITED_ENV =
  process.platform === "win32"
    ? [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
        "PROGRAMFILES",
      ]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];

/** The environment every process starts with: inherited basics, then manifest defaults, then the declared variables the bridge has. */
export function processBaseEnv(spec: Pick<PluginSpec, "allowedEnv" | "defaults">, env: Env): Record<string, string> {
  const base: Record<string, string> = {};
  for (const name of INHERITED_ENV) if (env[name] !== undefined) base[name] = env[name];
  Object.assign(base, spec.defaults);
  for (const name of spec.allowedEnv) if (env[name] !== undefined) base[name] = env[name];
  return base;
}

const isSet = (env: Env, name: string) => env[name] !== undefined && env[name] !== "";

/** A spec for `-- <command> [args…]`: no manifest, only --env-allow names. */
export function commandPlugin(commandLine: readonly string[], envAllow: ReadonlySet<string>, env: Env, cwd: string): PluginSpec {
  const [command, ...args] = commandLine as [string, ...string[]];
  const spec = { allowedEnv: new Set(envAllow), defaults: {} };
  return { name: "", command, args, cwd, ...spec, baseEnv: processBaseEnv(spec, env), requiredEnv: [], providedEnv: [], manifest: null };
}

interface ReadManifest {
  raw: Record<string, unknown>;
  manifest: Manifest;
}

function readManifest(path: string): ReadManifest {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read manifest ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UsageError(`manifest ${path} is not valid JSON`);
  }
  try {
    const manifest = parseManifest(raw);
    return { raw: raw as Record<string, unknown>, manifest };
  } catch (error) {
    if (error instanceof AppError) throw new UsageError(`${path}: ${error.message}`);
    throw error;
  }
}

/** A spec from a manifest file: its launch line, run in its directory, its declared variables allowed. */
export function manifestPlugin(name: string, path: string, envAllow: ReadonlySet<string>, env: Env): PluginSpec {
  const { raw, manifest } = readManifest(path);
  let launch;
  try {
    launch = stdioLaunch(manifest);
  } catch (error) {
    if (error instanceof AppError) throw new UsageError(`${path}: ${error.message}`);
    throw error;
  }
  const declared = declaredEnv(manifest);
  const allowedEnv = new Set([...envAllow, ...declared.map((v) => v.name)]);
  const defaults: Record<string, string> = {};
  for (const v of declared) if (v.default !== undefined && env[v.name] === undefined) defaults[v.name] = v.default;
  const spec = { allowedEnv, defaults };
  return {
    name,
    command: launch.command,
    args: launch.args,
    cwd: dirname(path),
    ...spec,
    baseEnv: processBaseEnv(spec, env),
    requiredEnv: declared.filter((v) => v.required && v.default === undefined).map((v) => v.name),
    providedEnv: declared.filter((v) => isSet(env, v.name)).map((v) => v.name),
    manifest: redactSecretDefaults(raw, secretEnvNames(manifest)),
  };
}

/** The manifests a plugin directory may hold, in the order they are looked for. */
const MANIFEST_FILES = ["plugin.json", "server.json"];

/**
 * Every plugin under `dir`: each subdirectory with a valid name holding a plugin.json (or else a
 * server.json). A plugin whose manifest is broken is left out and logged, so one bad plugin does
 * not take the others down; a `dir` that serves nothing is refused.
 */
export function loadPlugins(dir: string, envAllow: ReadonlySet<string>, env: Env, log: Logger): PluginSpec[] {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`--plugins ${dir}: not a directory`);
  const plugins: PluginSpec[] = [];
  for (const entry of readdirSync(root).sort()) {
    const path = join(root, entry);
    if (!statSync(path).isDirectory()) continue;
    const file = MANIFEST_FILES.map((name) => join(path, name)).find((candidate) => existsSync(candidate));
    if (file === undefined) continue;
    if (!PLUGIN_NAME.test(entry)) {
      log("plugin_skipped", { plugin: entry, reason: "a plugin's directory name is letters, digits, '.', '_' and '-' only" });
      continue;
    }
    try {
      plugins.push(manifestPlugin(entry, file, envAllow, env));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      log("plugin_skipped", { plugin: entry, reason: error.message });
    }
  }
  if (plugins.length === 0) throw new UsageError(`--plugins ${dir}: no directory under it holds a valid plugin.json or server.json`);
  return plugins;
}
