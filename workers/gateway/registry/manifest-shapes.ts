/**
 * The plugin manifest shapes accepted as they are written, one zod schema per shape, each
 * normalised to one internal `Manifest`:
 * - an MCP registry `server.json` package (`transport: {type}`, `registryType`, `identifier`,
 *   `environmentVariables` with `isRequired` / `isSecret`), in camelCase or snake_case;
 * - the original tools provider's `plugin.json` package (`transport_type`, `runtime`, `command` as
 *   an array, `environment_variables` with `required` / `secret`);
 * - at the top level, beside `packages`, this project's own `command` / `args` / `env`.
 * A package is read by the shape its transport key names (`transport_type` or `transport`), so an
 * error names the field of the shape the author wrote. Pure zod: the bridge and the gateway share it.
 */
import * as z from "zod";

/**
 * An environment variable name a shell would accept; anything else is refused, not escaped. The
 * one rule for manifests, registered stdio variables, the bridge's --env-allow and Mcp-Bridge-Env.
 */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envName = z.string().regex(ENV_VAR_NAME, "must be an environment variable name (letters, digits, _)");

export type ManifestTransport = "stdio" | "streamable-http" | "sse";

export interface ManifestEnv {
  name: string;
  description: string | undefined;
  required: boolean;
  secret: boolean;
  default: string | undefined;
}

/** One package of any shape, as the rest of the code sees it. */
export interface ManifestPackage {
  transport: ManifestTransport;
  registryType: string | null;
  identifier: string | null;
  version: string | null;
  runtimeHint: string | null;
  /** The provider's plugin.json: the command line to run after the runtime (or whole, when it starts with it). */
  command: string[] | null;
  packageArguments: string[];
  runtimeArguments: string[];
  environmentVariables: ManifestEnv[];
}

// ---- MCP registry server.json packages --------------------------------------------------------

const registryEnvSchema = z
  .object({
    name: envName,
    description: z.string().optional(),
    isRequired: z.boolean().optional(),
    is_required: z.boolean().optional(),
    isSecret: z.boolean().optional(),
    is_secret: z.boolean().optional(),
    default: z.string().optional(),
  })
  .transform((v): ManifestEnv => ({
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

const registryPackageSchema = z
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
    environmentVariables: z.array(registryEnvSchema).optional(),
    environment_variables: z.array(registryEnvSchema).optional(),
  })
  .loose()
  .transform((p): ManifestPackage => ({
    transport: p.transport.type,
    registryType: p.registryType ?? p.registry_type ?? p.registry_name ?? null,
    identifier: p.identifier ?? p.name ?? null,
    version: p.version ?? null,
    runtimeHint: p.runtimeHint ?? p.runtime_hint ?? null,
    command: null,
    packageArguments: [...(p.packageArguments ?? p.package_arguments ?? []), ...(p.args ?? [])],
    runtimeArguments: p.runtimeArguments ?? p.runtime_arguments ?? [],
    environmentVariables: p.environmentVariables ?? p.environment_variables ?? [],
  }));

// ---- the original tools provider's plugin.json packages ----------------------------------------

const providerEnvSchema = z
  .object({
    name: envName,
    description: z.string().optional(),
    required: z.boolean().optional(),
    secret: z.boolean().optional(),
    default: z.string().optional(),
  })
  .transform((v): ManifestEnv => ({
    name: v.name,
    description: v.description,
    required: v.required ?? false,
    secret: v.secret ?? false,
    default: v.default,
  }));

/** The provider names streamable HTTP `http` or `streamable_http`; the registry spells it `streamable-http`. */
const PROVIDER_TRANSPORTS = { stdio: "stdio", sse: "sse", http: "streamable-http", streamable_http: "streamable-http" } as const;

const providerPackageSchema = z
  .object({
    /** The package's label ("default"), not something to run. */
    name: z.string().optional(),
    version: z.string().optional(),
    transport_type: z.enum(["stdio", "sse", "http", "streamable_http"]),
    runtime: z.string().min(1).optional(),
    command: z.array(z.string().min(1)).min(1, "must name at least the program to run").optional(),
    args: z.array(z.string()).optional(),
    environment_variables: z.array(providerEnvSchema).optional(),
  })
  .loose()
  .transform((p): ManifestPackage => ({
    transport: PROVIDER_TRANSPORTS[p.transport_type],
    registryType: null,
    identifier: null,
    version: p.version ?? null,
    runtimeHint: p.runtime ?? null,
    command: p.command ?? null,
    packageArguments: p.args ?? [],
    runtimeArguments: [],
    environmentVariables: p.environment_variables ?? [],
  }));

/** Each package is read by the shape its transport key belongs to; the chosen schema's issues are kept as they are. */
const packageSchema = z.looseObject({}).transform((value, ctx): ManifestPackage => {
  const schema = "transport_type" in value ? providerPackageSchema : registryPackageSchema;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.issues.push({ code: "custom", message: issue.message, path: issue.path, input: value });
  return z.NEVER;
});

// ---- the manifest ------------------------------------------------------------------------------

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
    message: "needs a command, or a package whose transport (transport.type or transport_type) is stdio",
    path: ["command"],
  });

export type Manifest = z.output<typeof manifestSchema>;
