/**
 * Field schemas for gateway sources, shared by the REST routes and /openapi.json (and by the
 * admin tools when they come). No schema takes a user id: the owner is the authenticated user.
 */
import * as z from "zod";
import { MAX_JSON_DEPTH, storedJsonObject } from "../../lib/stored-json";

export const TRANSPORT_TYPES = ["streamable_http", "sse", "stdio"] as const;
export const LIFECYCLE_MODES = ["transient", "singleton"] as const;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** A plugin.json / server.json is a few kilobytes; the manifest is stored and returned as sent. */
export const MAX_MANIFEST_BYTES = 32 * 1024;

/**
 * Characters allowed in a variable name: an HTTP header name (RFC 9110 token) for remote sources,
 * which also admits every POSIX environment variable name for stdio ones; the service applies
 * the rule of the source's transport (workers/gateway/registry/registration.ts).
 */
const VAR_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const MAX_SLUG = 40;

/**
 * A whole value that is a `${secrets:…}` or `${env:…}` reference: the original provider resolved
 * those from its secret store or its own environment; this gateway has neither, so it says so
 * rather than passing the reference text on as the value.
 */
const UNRESOLVED_REFERENCE = /^\$\{(secrets|env):[^}]*\}$/;

const envVarName = z
  .string()
  .min(1)
  .max(100)
  .regex(VAR_NAME, "must be a valid HTTP header or environment variable name")
  .describe(
    "Remote sources: HTTP header sent on every upstream request (for example Authorization). stdio: environment variable of the subprocess",
  );
const envVarValue = z
  .string()
  .max(4096)
  .refine(
    (value) => !UNRESOLVED_REFERENCE.test(value),
    "is a ${secrets:…} / ${env:…} reference, which this gateway does not resolve: send the value itself (secret values are stored encrypted)",
  )
  .describe("The value; write-only when secret");

export const envVarInput = z.object({
  name: envVarName,
  value: envVarValue,
  secret: z.boolean().default(true).describe("Encrypted at rest and never returned; default true"),
});

const MAX_ENV_VARS = 20;

/**
 * Today's list of `{name, value, secret}`, or the original provider's object of name → value
 * (every value secret). Either way the service sees the list.
 */
const envVars = z
  .union(
    [
      z.array(envVarInput),
      z.record(envVarName, envVarValue).transform((map) => Object.entries(map).map(([name, value]) => ({ name, value, secret: true }))),
    ],
    { error: 'expected a list of {"name", "value", "secret"} or an object of "NAME": "value"' },
  )
  .refine((vars) => vars.length <= MAX_ENV_VARS, `at most ${MAX_ENV_VARS} variables`)
  .refine((vars) => new Set(vars.map((v) => v.name.toLowerCase())).size === vars.length, "names must be unique")
  .describe(
    'Remote sources: HTTP headers on upstream requests. stdio: the subprocess environment. A list of {"name", "value", "secret"} or an object of "NAME": "value" (values secret)',
  );

export const fields = {
  source_id: z.int().positive().max(Number.MAX_SAFE_INTEGER).describe("The source's numeric id"),
  name: z.string().trim().min(1).max(100).describe("Display name; the slug is derived from it"),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .describe("The upstream MCP endpoint; for stdio sources the URL of the `mcp-edge bridge` that runs the process"),
  mcp_transport_type: z
    .enum(TRANSPORT_TYPES)
    .describe("streamable_http, sse (legacy HTTP+SSE) or stdio (a local process behind `mcp-edge bridge`)"),
  mcp_lifecycle_mode: z.enum(LIFECYCLE_MODES).describe("singleton keeps one warm upstream connection; transient connects per call"),
  mcp_env_vars: envVars,
  timeout_ms: z.int().min(100).max(120_000).describe("Per-call upstream timeout in milliseconds (default 30000)"),
  enabled: z.boolean().describe("Disabled sources keep their inventory but are not listed, called or rediscovered"),
  hidden: z.boolean().describe("Hidden sources stay enabled (discovered, health-checked) but are left out of your /mcp list"),
  mcp_command: z.string().trim().min(1).max(1000).describe("stdio: the command the bridge runs (informational; the bridge decides)"),
  mcp_args: z.array(z.string().max(1000)).max(100).describe("stdio: the command's arguments"),
  mcp_runtime_hint: z.string().trim().min(1).max(50).describe("stdio: the runtime (npx, uvx, docker, node, python …)"),
  manifest: storedJsonObject(MAX_MANIFEST_BYTES).describe(
    `A plugin.json / server.json object: its packages' environment variables are checked (required) and kept secret (isSecret); at most ${MAX_MANIFEST_BYTES} bytes, nested at most ${MAX_JSON_DEPTH} levels`,
  ),
  bridge_token: z
    .string()
    .min(16)
    .max(4096)
    .describe("stdio: the bearer token of the `mcp-edge bridge` (sent as Authorization); write-only, encrypted at rest"),
  mcp_plugin_dir: z
    .string()
    .trim()
    .min(1)
    .max(1000)
    .describe(
      "A plugin served by `mcp-edge bridge --plugins DIR`, named by its directory (`/opt/mcp-plugins/github` and `github` both name the bridge's `github`); then url is the bridge's base URL and the manifest is read from the bridge",
    ),
  description: z.string().trim().max(1000).describe("What the source is for (shown, never interpreted)"),
  source_type: z.literal("mcp", { error: 'only "mcp" sources are served here' }).describe('"mcp" (the default; the only kind served here)'),
};

/**
 * `url` and `mcp_server_url`: the original provider's remote registration sends both, and the MCP
 * endpoint is `mcp_server_url` when given; a plugin (`mcp_plugin_dir`) is reached through the
 * bridge named by `url`.
 */
const urlFields = {
  url: fields.url.optional(),
  mcp_server_url: fields.url.optional().describe("Remote sources: the upstream MCP endpoint; wins over url when both are given"),
};

const stdioFields = {
  mcp_command: fields.mcp_command.optional(),
  mcp_args: fields.mcp_args.optional(),
  mcp_runtime_hint: fields.mcp_runtime_hint.optional(),
  manifest: fields.manifest.optional(),
  bridge_token: fields.bridge_token.optional(),
  mcp_plugin_dir: fields.mcp_plugin_dir.optional(),
};

export const createSourceFields = z.object({
  name: fields.name,
  source_type: fields.source_type.default("mcp"),
  description: fields.description.optional(),
  ...urlFields,
  mcp_transport_type: fields.mcp_transport_type
    .optional()
    .describe(
      "streamable_http (the default), sse (legacy HTTP+SSE) or stdio (a local process behind `mcp-edge bridge`; the default with mcp_plugin_dir)",
    ),
  mcp_lifecycle_mode: fields.mcp_lifecycle_mode.default("transient"),
  mcp_env_vars: fields.mcp_env_vars.default([]),
  ...stdioFields,
  timeout_ms: fields.timeout_ms.default(DEFAULT_TIMEOUT_MS),
  enabled: fields.enabled.default(true),
  hidden: fields.hidden.default(false),
});

interface PluginShape {
  mcp_plugin_dir?: string | undefined;
  mcp_server_url?: string | undefined;
  mcp_transport_type?: string | undefined;
  manifest?: unknown;
}

/** A plugin is a stdio process behind the bridge `url` names, with the bridge's manifest. */
const PLUGIN_RULES: { holds: (input: PluginShape) => boolean; path: keyof PluginShape; message: string }[] = [
  {
    holds: (input) => input.mcp_plugin_dir === undefined || input.mcp_server_url === undefined,
    path: "mcp_plugin_dir",
    message:
      "a plugin (mcp_plugin_dir) runs behind the mcp-edge bridge named by url; mcp_server_url is for remote servers: give one or the other",
  },
  {
    holds: (input) => input.mcp_plugin_dir === undefined || input.mcp_transport_type === undefined || input.mcp_transport_type === "stdio",
    path: "mcp_transport_type",
    message:
      "plugins (mcp_plugin_dir) run over stdio behind mcp-edge bridge; sse and streamable_http are for remote servers (mcp_server_url)",
  },
  {
    holds: (input) => input.mcp_plugin_dir === undefined || input.manifest === undefined,
    path: "manifest",
    message: "a plugin's manifest is read from the bridge: leave manifest out when giving mcp_plugin_dir",
  },
];

function withPluginRules<S extends z.ZodType<PluginShape>>(schema: S): S {
  let checked = schema;
  for (const rule of PLUGIN_RULES) checked = checked.refine(rule.holds, { message: rule.message, path: [rule.path] });
  return checked;
}

export const createSourceInput = withPluginRules(
  createSourceFields.refine((input) => (input.url ?? input.mcp_server_url) !== undefined, {
    message: "give url (or mcp_server_url); with mcp_plugin_dir, url is the base URL of the `mcp-edge bridge --plugins` serving it",
    path: ["url"],
  }),
);

/** At least one field; `mcp_env_vars` replaces the whole list (secrets must be sent again). */
export const updateSourceFields = z.object({
  name: fields.name.optional(),
  description: fields.description.nullable().optional().describe("What the source is for; null clears it"),
  ...urlFields,
  mcp_transport_type: fields.mcp_transport_type.optional(),
  mcp_lifecycle_mode: fields.mcp_lifecycle_mode.optional(),
  mcp_env_vars: fields.mcp_env_vars.optional(),
  ...stdioFields,
  timeout_ms: fields.timeout_ms.optional(),
  enabled: fields.enabled.optional(),
  hidden: fields.hidden.optional(),
});

const someField = (input: Record<string, unknown>) =>
  Object.entries(input).some(([key, value]) => key !== "source_id" && value !== undefined);

export const updateSourceInput = withPluginRules(updateSourceFields.refine(someField, "give at least one field to change"));

/** The admin tools' shapes: the REST body plus the id the REST path carries. */
export const sourceIdInput = z.object({ source_id: fields.source_id });
export const updateSourceToolInput = withPluginRules(
  sourceIdInput.extend(updateSourceFields.shape).refine(someField, "give at least one field to change besides source_id"),
);

export type CreateSourceInput = z.output<typeof createSourceInput>;
export type UpdateSourceInput = z.output<typeof updateSourceInput>;
export type EnvVarInput = z.output<typeof envVarInput>;

// ---- outputs ------------------------------------------------------------------------------

export const sourceToolSchema = z.object({
  name: z.string().describe("The tool's name on the upstream"),
  alias: z.string().describe("Stable name after the slug on /mcp"),
  gateway_name: z.string().describe("<slug>__<alias>: the name to call on /mcp"),
  aliases: z.array(z.string()).describe("Older gateway names (of a renamed upstream tool) that still call this tool"),
  hidden: z.boolean().describe("Hidden from your /mcp list"),
  title: z.string().nullable().describe("The upstream's title, cleaned; /mcp serves it followed by the source's slug: <title> (<slug>)"),
  description: z
    .string()
    .describe("As the upstream wrote it, with invisible, bidirectional and control characters and escape sequences removed"),
  annotations: z
    .record(z.string(), z.unknown())
    .describe('The upstream\'s own claims (readOnlyHint …): /mcp serves them as _meta["mcp-edge/upstream-annotations"], not as its own'),
  warnings: z.array(z.string()).describe("What was removed from or shortened in the tool's text at the last discovery"),
  held: z.boolean().describe("Its definition changed upstream, or it is new, since you approved: not listed or callable until approved"),
  change: z
    .enum(["new", "changed"])
    .nullable()
    .describe("Why it is held: no approved definition of this name, or another one; null when not held"),
});

export const sourceSchema = z.object({
  id: z.int(),
  name: z.string(),
  slug: z.string(),
  source_type: z.literal("mcp"),
  description: z.string().nullable(),
  url: z.string().describe("The MCP endpoint calls reach (for a plugin, the bridge's /plugins/<name>/mcp)"),
  mcp_server_url: z.string(),
  mcp_plugin_dir: z.string().nullable().describe("The plugin directory as registered; null unless the source is a bridge plugin"),
  mcp_transport_type: z.enum(TRANSPORT_TYPES),
  mcp_lifecycle_mode: z.enum(LIFECYCLE_MODES),
  mcp_env_vars: z
    .array(z.object({ name: z.string(), secret: z.boolean(), value: z.string().optional().describe("Absent for secrets") }))
    .describe("Secret values are never returned"),
  mcp_command: z.string().nullable(),
  mcp_args: z.array(z.string()),
  mcp_runtime_hint: z.string().nullable(),
  manifest: z.record(z.string(), z.unknown()).nullable().describe("As registered; default values of secret variables removed"),
  has_bridge_token: z.boolean().describe("Whether a bridge token is stored (its value is never returned)"),
  timeout_ms: z.int(),
  enabled: z.boolean(),
  hidden: z.boolean(),
  tool_count: z.int(),
  last_discovered_at: z.string().nullable(),
  last_discovery_error: z.string().nullable(),
  warnings: z
    .array(z.string())
    .describe("Non-fatal findings: tools held for your approval, alias clashes, tool text cleaned or shortened at the last discovery"),
  held_tool_count: z
    .int()
    .describe("Tools whose definition changed upstream (or that are new) since you approved: see /api/sources/{id}/changes"),
  inventory_stale_at: z.string().nullable().describe("When the upstream's tools/list cache hint expires"),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SourceView = z.output<typeof sourceSchema>;

export const sourceResult = z.object({ source: sourceSchema });
export const sourceDetail = z.object({ source: sourceSchema, tools: z.array(sourceToolSchema) });
export const sourceList = z.object({ sources: z.array(sourceSchema), count: z.int() });
export const deleteSourceResult = z.object({ deleted: z.literal(true), id: z.int() });

// ---- pinned tool definitions (decision 0049) ---------------------------------------------------

const jsonObjectField = z.record(z.string(), z.unknown());
export const DEFINITION_FIELDS = ["title", "description", "input_schema", "output_schema", "annotations"] as const;

export const toolDefinitionSchema = z.object({
  title: z.string().nullable(),
  description: z.string(),
  input_schema: jsonObjectField,
  output_schema: jsonObjectField.nullable(),
  annotations: jsonObjectField.describe("The upstream's own claims"),
});

export const toolChangeSchema = z.object({
  name: z.string().describe("The tool's name on the upstream"),
  gateway_name: z.string().describe("<slug>__<alias>: its name on /mcp once approved"),
  change: z
    .enum(["new", "changed"])
    .describe("new: no definition of this name was approved (a tool added, or renamed, since); changed: another one was"),
  changed_fields: z.array(z.enum(DEFINITION_FIELDS)).describe("What differs from the approved definition; every field for a new tool"),
  approved: toolDefinitionSchema.nullable().describe("The definition you approved; null for a new tool"),
  current: toolDefinitionSchema.describe("The definition the upstream lists now, waiting for your approval"),
  definition_hash: z
    .string()
    .describe("SHA-256 of the current definition (canonical JSON of name, title, description, schemas, annotations)"),
  approved_hash: z.string().nullable().describe("SHA-256 of the approved definition; null when none, or pinned before hashes were kept"),
  detected_at: z.string().nullable().describe("When a discovery first found the current definition"),
});

export const toolChangeList = z.object({
  source_id: z.int(),
  changes: z.array(toolChangeSchema).describe("Tools held — not listed on /mcp, not callable — until you approve them"),
  count: z.int(),
});

export const approveChangesInput = z.object({
  tools: z
    .array(z.string().min(1).max(1024))
    .min(1)
    .max(1000)
    .optional()
    .describe("The upstream names of the held tools to approve; absent approves every held tool of the source"),
});

export const approveChangesResult = toolChangeList.extend({
  approved: z
    .array(z.object({ name: z.string(), definition_hash: z.string() }))
    .describe("The definitions approved now; the tools are listed and callable"),
});

export type ToolChangeList = z.output<typeof toolChangeList>;
export type ApproveChangesResult = z.output<typeof approveChangesResult>;

/**
 * "My GitHub (prod)" → "my_github_prod": lower-case [a-z0-9_], no leading, trailing or doubled
 * underscore — so the first `__` in a gateway tool name always ends the slug.
 */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, MAX_SLUG)
    .replace(/_+$/, "");
  return slug === "" ? "source" : /^[0-9]/.test(slug) ? `s_${slug}` : slug;
}

/** An upstream tool name made safe to follow `<slug>__`: [A-Za-z0-9_.-], at most 64 characters. */
export function toolAlias(name: string): string {
  const alias = name.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 64);
  return alias === "" ? "tool" : alias;
}

export const GATEWAY_SEPARATOR = "__";

// ---- per-user hiding and health ------------------------------------------------------------

export const hiddenToolName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+$/, "must be a tool name as /mcp lists it (a built-in name or <source_slug>__<tool>)")
  .describe("A tool name as /mcp lists it: a built-in tool (add_task) or a source's tool (<source_slug>__<tool>)");

export const hiddenToolSchema = z.object({
  name: z.string().describe("The tool's name on /mcp"),
  source_id: z.int().nullable().describe("The source it belongs to; null for built-in tools"),
});
export const hiddenToolList = z.object({ hidden_tools: z.array(hiddenToolSchema), count: z.int() });
export const hideToolResult = z.object({ hidden: z.boolean(), tool: hiddenToolSchema });

export const HEALTH_STATES = [
  "healthy",
  "degraded",
  "unhealthy",
  "disabled",
  "unknown",
  "needs_authorization",
  "authorization_expired",
] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export const callStatsSchema = z.object({
  window: z.int().describe("Calls in the rolling window (the last 100)"),
  errors: z.int(),
  error_rate: z.number().describe("0..1"),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  last_success_at: z.string().nullable(),
  last_error_at: z.string().nullable(),
  last_error: z.string().nullable().describe("<type>: <message>; never secrets"),
});

export const sourceHealthSchema = z.object({
  source_id: z.int(),
  slug: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  state: z
    .enum(HEALTH_STATES)
    .describe(
      "disabled: switched off; needs_authorization: its upstream uses OAuth and you have not connected your account; authorization_expired: your connection expired (the upstream refused to renew it); unhealthy: circuit breaker open; degraded: error rate over 20% or the last discovery failed; unknown: never discovered and never called; else healthy",
    ),
  authorization: z
    .enum(["needs_authorization", "connected", "authorization_expired"])
    .nullable()
    .describe("Your connection to an OAuth-protected upstream; null when the upstream uses no OAuth"),
  breaker: z.enum(["closed", "open", "half_open"]),
  tool_count: z.int(),
  last_discovered_at: z.string().nullable(),
  last_discovery_error: z.string().nullable(),
  calls: callStatsSchema,
});
export type SourceHealth = z.output<typeof sourceHealthSchema>;
export const sourceHealthList = z.object({ sources: z.array(sourceHealthSchema), count: z.int() });
