/**
 * Plugin manifests for stdio MCP servers: `plugin.json` or an MCP registry
 * `server.json`, in camelCase or snake_case. Pure zod, no Worker or Node APIs: the bridge
 * (bin/bridge) reads it to know what to spawn and which environment variables a gateway may set,
 * and the gateway reads it to check a stdio source's variables at registration.
 */
import { z } from "zod";
import { AppError } from "../lib/errors";

/**
 * An environment variable name a shell would accept; anything else is refused, not escaped. The
 * one rule for manifests, registered stdio variables, the bridge's --env-allow and Mcp-Bridge-Env.
 */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envName = z.string().regex(ENV_VAR_NAME, "must be an environment variable name (letters, digits, _)");

const envVariableSchema = z
  .object({
    name: envName,
    description: z.string().optional(),
    isRequired: z.boolean().optional(),
    is_required: z.boolean().optional(),
    isSecret: z.boolean().optional(),
    is_secret: z.boolean().optional(),
    default: z.string().optional(),
  })
  .transform((v) => ({
    name: v.name,
    description: v.description,
    required: v.isRequired ?? v.is_required ?? false,
    secret: v.isSecret ?? v.is_secret ?? false,
    default: v.default,
  }));

/** Registry arguments are objects ({type: positional|named, name, value, default}); plain strings are taken as they are. */
const argumentSchema = z.union([
  z.string(),
  z
    .object({
      type: z.enum(["positional", "named"]).optional(),
      name: z.string().optional(),
      value: z.string().optional(),
      default: z.string().optional(),
      valueHint: z.string().optional(),
      value_hint: z.string().optional(),
    })
    .transform((a): string[] => {
      const value = a.value ?? a.default;
      if (a.type === "named" || (a.type === undefined && a.name !== undefined)) {
        if (!a.name) return [];
        return value === undefined ? [a.name] : [a.name, value];
      }
      return value === undefined ? [] : [value];
    }),
]);
const argumentsSchema = z.array(argumentSchema).transform((list) => list.flatMap((a) => (typeof a === "string" ? [a] : a)));

const packageSchema = z
  .object({
    registryType: z.string().optional(),
    registry_type: z.string().optional(),
    registry_name: z.string().optional(),
    identifier: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    version: z.string().optional(),
    runtimeHint: z.string().min(1).optional(),
    runtime_hint: z.string().min(1).optional(),
    transport: z.object({ type: z.enum(["stdio", "streamable-http", "sse"]) }).loose(),
    packageArguments: argumentsSchema.optional(),
    package_arguments: argumentsSchema.optional(),
    runtimeArguments: argumentsSchema.optional(),
    runtime_arguments: argumentsSchema.optional(),
    args: z.array(z.string()).optional(),
    environmentVariables: z.array(envVariableSchema).optional(),
    environment_variables: z.array(envVariableSchema).optional(),
  })
  .loose()
  .transform((p) => ({
    registryType: p.registryType ?? p.registry_type ?? p.registry_name ?? null,
    identifier: p.identifier ?? p.name ?? null,
    version: p.version ?? null,
    runtimeHint: p.runtimeHint ?? p.runtime_hint ?? null,
    transport: p.transport.type,
    packageArguments: [...(p.packageArguments ?? p.package_arguments ?? []), ...(p.args ?? [])],
    runtimeArguments: p.runtimeArguments ?? p.runtime_arguments ?? [],
    environmentVariables: p.environmentVariables ?? p.environment_variables ?? [],
  }));

export const manifestSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    version: z.string().optional(),
    packages: z.array(packageSchema).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Fixed variables for the process: always applied, and settable by a gateway. */
    env: z.record(envName, z.string()).optional(),
  })
  .loose()
  .refine((m) => m.command !== undefined || (m.packages ?? []).some((p) => p.transport === "stdio"), {
    message: "needs a command, or a package whose transport.type is stdio",
    path: ["command"],
  });

export type Manifest = z.output<typeof manifestSchema>;
export type ManifestPackage = NonNullable<Manifest["packages"]>[number];

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

function packageSpec(pkg: ManifestPackage, runtime: string): string {
  const id = pkg.identifier ?? "";
  if (!pkg.version) return id;
  if (runtime === "uvx") return `${id}==${pkg.version}`;
  if (runtime === "docker") return `${id}:${pkg.version}`;
  if (runtime === "dnx") return `${id}@${pkg.version}`;
  return `${id}@${pkg.version}`;
}

/**
 * The command line to spawn: the manifest's own `command`/`args` when given, otherwise its first
 * stdio package run by its runtime hint (npm → `npx -y <id>@<version>`, pypi → `uvx <id>==<version>`,
 * oci → `docker run -i --rm <image>:<version>`), followed by the package arguments.
 */
export function stdioLaunch(manifest: Manifest): { command: string; args: string[]; runtimeHint: string | null } {
  if (manifest.command) return { command: manifest.command, args: manifest.args ?? [], runtimeHint: null };
  const pkg = stdioPackage(manifest);
  if (!pkg) throw AppError.invalid("manifest needs a command, or a package whose transport.type is stdio", "command");
  if (!pkg.identifier) throw AppError.invalid("manifest package has no identifier to run", "packages.identifier");
  const runtime = pkg.runtimeHint ?? (pkg.registryType ? DEFAULT_RUNTIME[pkg.registryType] : undefined);
  if (!runtime) throw AppError.invalid("manifest package has no runtimeHint and an unknown registryType; add runtimeHint", "packages.runtimeHint");
  const runtimeArgs =
    pkg.runtimeArguments.length > 0
      ? pkg.runtimeArguments
      : runtime === "npx"
        ? ["-y"]
        : runtime === "docker"
          ? ["run", "-i", "--rm"]
          : [];
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
