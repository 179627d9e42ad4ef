/**
 * The protected resources (RFC 8707 / RFC 9728) of one origin, and the audience rule.
 *
 * Every origin serves six resources: the three MCP servers, the gateway `/mcp`, the REST API
 * `/api`, and the origin itself (the root: every route). A token issued for resource A is
 * accepted at A and at A's path-boundary descendants, nowhere else — the library's own resource
 * semantics — so a `/mcp/tasks` token is refused at `/mcp/rag`, `/mcp` and `/api`, a `/mcp` token
 * is accepted at `/mcp/tasks` (the gateway serves those tools anyway), and a root token everywhere.
 */
import { type Scope, SCOPES } from "./scopes";

/** A resource by its path on the origin; "" is the root (the origin itself). */
export type ResourcePath = "/mcp/tasks" | "/mcp/rag" | "/mcp/thinking" | "/mcp" | "/api" | "";

export const RESOURCE_PATHS: readonly ResourcePath[] = ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp", "/api", ""];

interface ResourceFacts {
  name: string;
  /**
   * What a first sign-in asks for unless the operator narrows it (default-scopes.ts): the 401
   * challenge's `scope` and the metadata's `scopes_supported`. For an MCP server, every scope its
   * tools use, so a client that asks for what it is told can call them all; what the app really
   * gets is what the person leaves ticked on the consent page (decision 0054). None for /api and
   * the root, whose callers (the console, scripts) name what they want.
   */
  asked: readonly Scope[];
  /** Every scope a token for this resource can use: what a request that names none is offered. */
  serves: readonly Scope[];
}

const TASKS_SCOPES: readonly Scope[] = ["tasks:read", "tasks:write"];
const RAG_SCOPES: readonly Scope[] = ["rag:read", "rag:write"];
const THINKING_SCOPES: readonly Scope[] = ["thinking"];
/** The gateway serves the three servers' tools, its admin tools and its sources' tools. */
const MCP_SCOPES: readonly Scope[] = [...TASKS_SCOPES, ...RAG_SCOPES, ...THINKING_SCOPES, "gateway:read", "gateway:admin"];

const FACTS: Readonly<Record<ResourcePath, ResourceFacts>> = {
  "/mcp/tasks": { name: "mcp-edge tasks MCP server", asked: TASKS_SCOPES, serves: TASKS_SCOPES },
  "/mcp/rag": { name: "mcp-edge RAG MCP server", asked: RAG_SCOPES, serves: RAG_SCOPES },
  "/mcp/thinking": { name: "mcp-edge sequential-thinking MCP server", asked: THINKING_SCOPES, serves: THINKING_SCOPES },
  "/mcp": { name: "mcp-edge gateway (every tool in one MCP server)", asked: MCP_SCOPES, serves: MCP_SCOPES },
  "/api": { name: "mcp-edge REST API", asked: [], serves: SCOPES },
  "": { name: "mcp-edge (every route)", asked: [], serves: SCOPES },
};

/** The MCP servers' resources: the ones whose default sign-in scopes an operator may narrow. */
export const MCP_RESOURCE_PATHS = ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp"] as const satisfies readonly ResourcePath[];

export function resourceFacts(path: ResourcePath): ResourceFacts {
  return FACTS[path];
}

/** The canonical resource URL: the bare origin for the root, else origin + path. */
export function resourceUrl(origin: string, path: ResourcePath): string {
  return origin + path;
}

/** The resource a request path belongs to (its most specific one). */
export function resourcePathOf(pathname: string): ResourcePath {
  for (const path of ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp", "/api"] as const) {
    if (pathname === path || pathname.startsWith(`${path}/`)) return path;
  }
  return "";
}

/** RFC 9728 §3.1: the metadata URL inserts the resource's path after the well-known prefix. */
export function resourceMetadataUrl(origin: string, path: ResourcePath): string {
  return `${origin}/.well-known/oauth-protected-resource${path}`;
}

/** The resource whose metadata a well-known path asks for, or undefined for an unknown one. */
export function resourcePathOfMetadata(pathname: string): ResourcePath | undefined {
  const prefix = "/.well-known/oauth-protected-resource";
  if (!pathname.startsWith(prefix)) return undefined;
  const rest = pathname.slice(prefix.length);
  return RESOURCE_PATHS.find((path) => path === rest);
}

/**
 * Whether a token issued for `audience` may be used at `resource` (both canonical URLs):
 * the same resource, or a path-boundary descendant of it (`/mcp` covers `/mcp/tasks`, not `/mcp-x`).
 */
export function audienceCovers(audience: string, resource: string): boolean {
  if (audience === resource) return true;
  const base = audience.endsWith("/") ? audience : `${audience}/`;
  return resource.startsWith(base);
}

/** Which MCP server's family a scope belongs to, or "api" for REST-only scopes. */
function familyOf(scope: Scope): ResourcePath {
  if (scope.startsWith("tasks:")) return "/mcp/tasks";
  if (scope.startsWith("rag:")) return "/mcp/rag";
  if (scope === "thinking") return "/mcp/thinking";
  if (scope.startsWith("gateway:")) return "/mcp";
  return "/api";
}

/**
 * The resource a client that omitted `resource` meant, from the scopes it asks for (every 401
 * names its resource's scopes, so a client sent to discover /mcp/tasks asks for tasks:*):
 * one family → that server (chat alone → /api); several MCP families → the gateway /mcp, which
 * serves them all; anything else, or no scope at all → the root.
 */
export function inferResource(scopes: readonly Scope[]): ResourcePath {
  const families = new Set(scopes.map(familyOf));
  if (families.size === 1) return [...families][0]!;
  if (families.size > 1 && !families.has("/api")) return "/mcp";
  return "";
}
