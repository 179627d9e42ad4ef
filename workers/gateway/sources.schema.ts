/**
 * Field schemas for gateway sources, shared by the REST routes and /openapi.json (and by the
 * admin tools when they come). No schema takes a user id: the owner is the authenticated user.
 */
import { z } from "zod";

export const TRANSPORT_TYPES = ["streamable_http", "sse", "stdio"] as const;
export const LIFECYCLE_MODES = ["transient", "singleton"] as const;
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Characters allowed in an HTTP header name (RFC 9110 token), which env vars become upstream. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Headers the transport owns or that would let a source confuse the upstream about who calls. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
]);
const MAX_SLUG = 40;

export const envVarInput = z.object({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(HEADER_NAME, "must be a valid HTTP header name")
    .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), "is set by the gateway itself")
    .describe("Header name sent to the upstream on every request (for example Authorization)"),
  value: z.string().max(4096).describe("Header value; write-only when secret"),
  secret: z.boolean().default(true).describe("Encrypted at rest and never returned; default true"),
});

export const fields = {
  source_id: z.int().positive().max(Number.MAX_SAFE_INTEGER).describe("The source's numeric id"),
  name: z.string().trim().min(1).max(100).describe("Display name; the slug is derived from it"),
  url: z.url({ protocol: /^https?$/ }).max(2000).describe("The upstream MCP endpoint (streamable HTTP)"),
  mcp_transport_type: z.enum(TRANSPORT_TYPES).describe("streamable_http (supported); sse and stdio are not supported yet"),
  mcp_lifecycle_mode: z
    .enum(LIFECYCLE_MODES)
    .describe("singleton keeps one warm upstream connection; transient connects per call"),
  mcp_env_vars: z
    .array(envVarInput)
    .max(20)
    .refine((vars) => new Set(vars.map((v) => v.name.toLowerCase())).size === vars.length, "names must be unique")
    .describe("Sent as HTTP headers on upstream requests"),
  timeout_ms: z.int().min(100).max(120_000).describe("Per-call upstream timeout in milliseconds (default 30000)"),
  enabled: z.boolean().describe("Disabled sources keep their inventory but are not listed or called"),
};

/** `url` and `mcp_server_url` are the same field under its two historical names; give one. */
const urlFields = {
  url: fields.url.optional(),
  mcp_server_url: fields.url.optional(),
};

export const createSourceInput = z
  .object({
    name: fields.name,
    source_type: z.literal("mcp").default("mcp"),
    ...urlFields,
    mcp_transport_type: fields.mcp_transport_type.default("streamable_http"),
    mcp_lifecycle_mode: fields.mcp_lifecycle_mode.default("transient"),
    mcp_env_vars: fields.mcp_env_vars.default([]),
    timeout_ms: fields.timeout_ms.default(DEFAULT_TIMEOUT_MS),
    enabled: fields.enabled.default(true),
  })
  .refine((input) => (input.url ?? input.mcp_server_url) !== undefined, { message: "give url (or mcp_server_url)", path: ["url"] })
  .refine((input) => !input.url || !input.mcp_server_url || input.url === input.mcp_server_url, {
    message: "url and mcp_server_url differ",
    path: ["mcp_server_url"],
  });

/** At least one field; `mcp_env_vars` replaces the whole list (secrets must be sent again). */
export const updateSourceInput = z
  .object({
    name: fields.name.optional(),
    ...urlFields,
    mcp_transport_type: fields.mcp_transport_type.optional(),
    mcp_lifecycle_mode: fields.mcp_lifecycle_mode.optional(),
    mcp_env_vars: fields.mcp_env_vars.optional(),
    timeout_ms: fields.timeout_ms.optional(),
    enabled: fields.enabled.optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), "give at least one field to change");

export type CreateSourceInput = z.output<typeof createSourceInput>;
export type UpdateSourceInput = z.output<typeof updateSourceInput>;
export type EnvVarInput = z.output<typeof envVarInput>;

// ---- outputs ------------------------------------------------------------------------------

export const sourceToolSchema = z.object({
  name: z.string().describe("The tool's name on the upstream"),
  alias: z.string().describe("Stable name after the slug on /mcp"),
  gateway_name: z.string().describe("<slug>__<alias>: the name to call on /mcp"),
  description: z.string(),
  annotations: z.record(z.string(), z.unknown()),
});

export const sourceSchema = z.object({
  id: z.int(),
  name: z.string(),
  slug: z.string(),
  source_type: z.literal("mcp"),
  url: z.string(),
  mcp_server_url: z.string(),
  mcp_transport_type: z.enum(TRANSPORT_TYPES),
  mcp_lifecycle_mode: z.enum(LIFECYCLE_MODES),
  mcp_env_vars: z
    .array(z.object({ name: z.string(), secret: z.boolean(), value: z.string().optional().describe("Absent for secrets") }))
    .describe("Secret values are never returned"),
  timeout_ms: z.int(),
  enabled: z.boolean(),
  tool_count: z.int(),
  last_discovered_at: z.string().nullable(),
  last_discovery_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SourceView = z.output<typeof sourceSchema>;

export const sourceResult = z.object({ source: sourceSchema });
export const createSourceResult = sourceSchema.extend({ tools: z.array(sourceToolSchema) });
export const sourceDetail = z.object({ source: sourceSchema, tools: z.array(sourceToolSchema) });
export const sourceList = z.object({ sources: z.array(sourceSchema), count: z.int() });
export const deleteSourceResult = z.object({ deleted: z.literal(true), id: z.int() });

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
