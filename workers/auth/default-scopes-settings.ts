/**
 * The scopes each MCP endpoint tells a client to ask for at its first sign-in — the 401's `scope`
 * and the protected resource metadata's `scopes_supported` — and the operator's narrowing of them,
 * the `OAUTH_DEFAULT_SCOPES` variable: "" (every scope the endpoint's tools use), or a JSON object
 * from endpoint path to a space-separated scope list, e.g. `{"/mcp": "gateway:read tasks:read"}`.
 * Read on first use; a value that cannot be used is an `unavailable` error naming the variable,
 * never a silent fallback (decision 0054).
 */
import * as z from "zod";
import { AppError } from "../lib/errors";
import { inferResource, MCP_RESOURCE_PATHS, type ResourcePath, resourceFacts } from "./resources";
import { isScope, normalizeScopes, type Scope } from "./scopes";

export const DEFAULT_SCOPES_VARIABLE = "OAUTH_DEFAULT_SCOPES";

type McpResourcePath = (typeof MCP_RESOURCE_PATHS)[number];
type Narrowed = Partial<Record<McpResourcePath, readonly Scope[]>>;

const settingShape = z.record(z.string(), z.string());

function misconfigured(reason: string): AppError {
  return new AppError("unavailable", `The setting ${DEFAULT_SCOPES_VARIABLE} is not valid: ${reason}. Tell the operator of this server.`);
}

function isMcpResourcePath(path: string): path is McpResourcePath {
  return (MCP_RESOURCE_PATHS as readonly string[]).includes(path);
}

function narrowedScopes(path: McpResourcePath, text: string): Scope[] {
  const names = text.split(/\s+/).filter((name) => name !== "");
  if (names.length === 0) throw misconfigured(`"${path}" names no scope (leave the endpoint out to keep its default)`);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) throw misconfigured(`"${path}" names the unknown scope ${unknown.join(", ")}`);
  const serves = resourceFacts(path).serves;
  const foreign = names.filter((name) => !(serves as readonly string[]).includes(name));
  if (foreign.length > 0)
    throw misconfigured(`"${path}" names ${foreign.join(", ")}, which its tools do not use (it serves ${serves.join(" ")})`);
  const scopes = normalizeScopes(names);
  // A client that sends no `resource` is bound to the resource its scopes point at (resources.ts#inferResource).
  const inferred = inferResource(scopes);
  if (inferred !== path) {
    throw misconfigured(
      `"${path}": ${scopes.join(" ")} would bind a client that sends no resource to ${inferred}; add a gateway:* scope or scopes of another server`,
    );
  }
  return scopes;
}

function parseSetting(raw: string): Narrowed {
  if (raw.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw misconfigured(`expected "" or a JSON object such as {"/mcp/tasks": "tasks:read"}`);
  }
  const parsed = settingShape.safeParse(json);
  if (!parsed.success) throw misconfigured(`expected a JSON object from endpoint path to a space-separated list of scopes`);
  const narrowed: Narrowed = {};
  for (const [path, text] of Object.entries(parsed.data)) {
    if (!isMcpResourcePath(path)) throw misconfigured(`"${path}" is not an MCP endpoint (use ${MCP_RESOURCE_PATHS.join(", ")})`);
    narrowed[path] = narrowedScopes(path, text);
  }
  return narrowed;
}

/** The last value read and what it meant: the variable does not change within an isolate. */
let cached: { raw: string; narrowed: Narrowed } | undefined;

function narrowedByOperator(raw: string): Narrowed {
  if (cached?.raw !== raw) cached = { raw, narrowed: parseSetting(raw) };
  return cached.narrowed;
}

/**
 * What a first sign-in at `path` is told to ask for: the operator's narrowing, else every scope its
 * tools use (none for /api and the root). Throws the `unavailable` error naming the variable when
 * its value cannot be used.
 */
export function defaultScopes(env: Pick<Env, "OAUTH_DEFAULT_SCOPES">, path: ResourcePath): readonly Scope[] {
  const narrowed = narrowedByOperator(env.OAUTH_DEFAULT_SCOPES ?? "");
  return (isMcpResourcePath(path) ? narrowed[path] : undefined) ?? resourceFacts(path).asked;
}
