/**
 * Plugin manifests for stdio MCP servers: what to launch, which environment variables a plugin
 * declares (required, secret, defaulted), and the manifest as it may be shown (secret defaults
 * redacted). The shapes themselves are in manifest-shapes.ts. Pure, no Worker or Node APIs: the
 * bridge (bin/bridge) reads manifests to know what to spawn and which variables a gateway may set,
 * and the gateway reads them to check a stdio source's variables at registration.
 */
import { AppError } from "../../lib/errors";
import { type Manifest, type ManifestPackage, manifestSchema } from "./manifest-shapes";

export { ENV_VAR_NAME, type Manifest, type ManifestPackage } from "./manifest-shapes";

export interface DeclaredEnv {
  name: string;
  required: boolean;
  secret: boolean;
  default?: string;
}

/** Parses a manifest, throwing AppError invalid_input that names the offending field. */
export function parseManifest(value: unknown): Manifest {
  const parsed = manifestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "manifest";
  throw AppError.invalid(`manifest ${field}: ${issue?.message ?? "invalid"}`, field);
}

function stdioPackage(manifest: Manifest): ManifestPackage | undefined {
  return manifest.packages?.find((p) => p.transport === "stdio");
}

/** How a registry type's packages are run when the manifest gives no runtime hint. */
const DEFAULT_RUNTIME: Record<string, string> = { npm: "npx", pypi: "uvx", oci: "docker", nuget: "dnx" };

/** What a runtime needs before the package to run it without asking (npx would prompt to install). */
function defaultRuntimeArgs(runtime: string): string[] {
  if (runtime === "npx") return ["-y"];
  if (runtime === "docker") return ["run", "-i", "--rm"];
  return [];
}

function packageSpec(pkg: ManifestPackage, runtime: string): string {
  const id = pkg.identifier ?? "";
  if (!pkg.version) return id;
  if (runtime === "uvx") return `${id}==${pkg.version}`;
  if (runtime === "docker") return `${id}:${pkg.version}`;
  return `${id}@${pkg.version}`;
}

export interface StdioLaunch {
  command: string;
  args: string[];
  runtimeHint: string | null;
}

/**
 * The provider's `runtime` + `command` array: `uvx` + `["mcp-server-github"]` runs `uvx
 * mcp-server-github` (npx and docker get their usual `-y` / `run -i --rm`); a command that already
 * starts with the runtime, or one without a runtime, runs as written.
 */
function providerLaunch(pkg: ManifestPackage, command: readonly string[]): StdioLaunch {
  const runtime = pkg.runtimeHint;
  const [program, ...rest] = command as [string, ...string[]];
  if (runtime === null || program === runtime) return { command: program, args: [...rest, ...pkg.packageArguments], runtimeHint: runtime };
  return { command: runtime, args: [...defaultRuntimeArgs(runtime), ...command, ...pkg.packageArguments], runtimeHint: runtime };
}

/**
 * The command line to spawn: the manifest's own `command`/`args` when given, otherwise its first
 * stdio package — the provider's `runtime` + `command`, or a registry package run by its runtime
 * hint (npm → `npx -y <id>@<version>`, pypi → `uvx <id>==<version>`, oci → `docker run -i --rm
 * <image>:<version>`) — followed by the package arguments.
 */
export function stdioLaunch(manifest: Manifest): StdioLaunch {
  if (manifest.command) return { command: manifest.command, args: manifest.args ?? [], runtimeHint: null };
  const pkg = stdioPackage(manifest);
  if (!pkg) throw AppError.invalid("manifest needs a command, or a package whose transport is stdio", "command");
  if (pkg.command) return providerLaunch(pkg, pkg.command);
  if (!pkg.identifier) throw AppError.invalid("manifest package has no identifier (or command) to run", "packages.identifier");
  const runtime = pkg.runtimeHint ?? (pkg.registryType ? DEFAULT_RUNTIME[pkg.registryType] : undefined);
  if (!runtime)
    throw AppError.invalid("manifest package has no runtimeHint and an unknown registryType; add runtimeHint", "packages.runtimeHint");
  const runtimeArgs = pkg.runtimeArguments.length > 0 ? pkg.runtimeArguments : defaultRuntimeArgs(runtime);
  return { command: runtime, args: [...runtimeArgs, packageSpec(pkg, runtime), ...pkg.packageArguments], runtimeHint: runtime };
}

/** Every variable the manifest declares (its stdio package's, then top-level `env` as optional defaults). */
export function declaredEnv(manifest: Manifest): DeclaredEnv[] {
  const out = new Map<string, DeclaredEnv>();
  for (const v of stdioPackage(manifest)?.environmentVariables ?? []) {
    out.set(v.name, { name: v.name, required: v.required, secret: v.secret, ...(v.default !== undefined ? { default: v.default } : {}) });
  }
  for (const [name, value] of Object.entries(manifest.env ?? {})) {
    if (!out.has(name)) out.set(name, { name, required: false, secret: false, default: value });
  }
  return [...out.values()];
}

/** Required variables neither in `provided` nor defaulted by the manifest. */
export function missingRequiredEnv(manifest: Manifest, provided: readonly string[]): string[] {
  const have = new Set(provided);
  return declaredEnv(manifest)
    .filter((v) => v.required && v.default === undefined && !have.has(v.name))
    .map((v) => v.name);
}

/** Names the manifest marks secret. */
export function secretEnvNames(manifest: Manifest): Set<string> {
  return new Set(
    declaredEnv(manifest)
      .filter((v) => v.secret)
      .map((v) => v.name),
  );
}

/**
 * What replaces the `default` of a secret variable wherever a manifest is shown or stored: the
 * value never leaves, while a re-check still sees that the variable has a default (is never missing).
 */
export const REDACTED = "<redacted>";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The manifest object as written, with the `default` of every variable in `secretNames` replaced by REDACTED. */
export function redactSecretDefaults(raw: Record<string, unknown>, secretNames: ReadonlySet<string>): Record<string, unknown> {
  const copy = structuredClone(raw);
  const packages = Array.isArray(copy["packages"]) ? copy["packages"] : [];
  for (const pkg of packages) {
    if (!isRecord(pkg)) continue;
    for (const key of ["environmentVariables", "environment_variables"]) {
      const vars = pkg[key];
      if (!Array.isArray(vars)) continue;
      for (const v of vars) {
        if (isRecord(v) && typeof v["name"] === "string" && secretNames.has(v["name"]) && v["default"] !== undefined)
          v["default"] = REDACTED;
      }
    }
  }
  return copy;
}
